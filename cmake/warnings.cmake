# Warnings for choreo's own targets (not for third-party headers).
add_library(choreo_warnings INTERFACE)
target_compile_options(choreo_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
  -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual -Wimplicit-fallthrough
  $<$<BOOL:${CHOREO_WERROR}>:-Werror>)
