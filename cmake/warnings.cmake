# Warnings for choreo's own targets (not for third-party headers), C++ and C (the C API's
# tests); the C++-only ones are left out of C.
add_library(choreo_warnings INTERFACE)
target_compile_options(choreo_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
  "$<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor;-Wold-style-cast;-Woverloaded-virtual>"
  -Wimplicit-fallthrough
  $<$<BOOL:${CHOREO_WERROR}>:-Werror>)
