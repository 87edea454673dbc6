# choreo_lib from the objects of a libchoreo_core.a that another build of this same source tree
# made (CHOREO_CORE_ARCHIVE): the core makes no MPI call and compiles with the same compiler and
# flags in every Release build, so the Open MPI build (scripts/test) and the SMPI sub-build
# (cmake/smpi.cmake) link the MPICH build's objects instead of compiling them again, which saves
# minutes of CI on two cores. The objects are taken out of the archive and archived again under
# this build's name, so the target is an ordinary static library: it installs and exports like
# the compiled one (an IMPORTED target could not be installed).
#
# The archive's member list is read when this build is configured, so the build reconfigures
# whenever the archive changes (a new source can add a member).
function(choreo_library_from_archive target archive)
  if(NOT EXISTS "${archive}")
    message(FATAL_ERROR "CHOREO_CORE_ARCHIVE=${archive} does not exist: build the preset that "
      "makes it first (scripts/test builds default-tests before openmpi-tests), or leave "
      "CHOREO_CORE_ARCHIVE empty to compile the core")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${archive}")
  execute_process(COMMAND ${CMAKE_AR} t "${archive}" OUTPUT_VARIABLE members
                  RESULT_VARIABLE listed OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT listed EQUAL 0 OR members STREQUAL "")
    message(FATAL_ERROR "CHOREO_CORE_ARCHIVE=${archive}: '${CMAKE_AR} t' cannot list it")
  endif()
  string(REPLACE "\n" ";" members "${members}")
  # `ar x` keeps one of two members with the same name: refuse rather than drop an object.
  set(unique ${members})
  list(REMOVE_DUPLICATES unique)
  list(LENGTH members member_count)
  list(LENGTH unique unique_count)
  if(NOT member_count EQUAL unique_count)
    message(FATAL_ERROR "CHOREO_CORE_ARCHIVE=${archive} has two members with the same name: "
      "build it with CHOREO_UNITY_BUILD=ON or leave CHOREO_CORE_ARCHIVE empty")
  endif()
  set(directory ${CMAKE_CURRENT_BINARY_DIR}/${target}_objects)
  list(TRANSFORM members PREPEND "${directory}/" OUTPUT_VARIABLE objects)
  add_custom_command(OUTPUT ${objects}
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${directory}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${directory}
    COMMAND ${CMAKE_COMMAND} -E chdir ${directory} ${CMAKE_AR} x "${archive}"
    DEPENDS "${archive}"
    COMMENT "Taking the core's objects out of ${archive}"
    VERBATIM)
  set_source_files_properties(${objects} PROPERTIES EXTERNAL_OBJECT ON GENERATED ON)
  add_library(${target} STATIC ${objects})
  set_target_properties(${target} PROPERTIES LINKER_LANGUAGE CXX)
endfunction()
