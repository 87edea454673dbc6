# choreo_mpi_flavour(<lang> <name-var> <version-var>): which MPI FindMPI found for <lang> (C or
# CXX), read from the mpi.h it compiles with: "MPICH" or "Open MPI" and its version, or empty
# for another MPI or when no mpi.h is found. Used by choreo's build to record its MPI and,
# installed beside choreoConfig.cmake, by a consumer's find_package(choreo) to compare (the
# two differ in ABI). Reads a header rather than running a program: no try_run, no cost.
function(choreo_mpi_flavour lang name_var version_var)
  set(name "")
  set(version "")
  foreach(dir IN LISTS MPI_${lang}_HEADER_DIR MPI_${lang}_INCLUDE_DIRS
                       MPI_${lang}_COMPILER_INCLUDE_DIRS CMAKE_${lang}_IMPLICIT_INCLUDE_DIRECTORIES)
    if(NOT EXISTS "${dir}/mpi.h")
      continue()
    endif()
    # The first mpi.h on the path is the one the compiler includes.
    file(STRINGS "${dir}/mpi.h" defines
      REGEX "^#define[ \t]+(MPICH_VERSION|OMPI_(MAJOR|MINOR|RELEASE)_VERSION)[ \t]")
    if(defines MATCHES "MPICH_VERSION[ \t]+\"([^\"]*)\"")
      set(name "MPICH")
      set(version "${CMAKE_MATCH_1}")
    elseif(defines MATCHES "OMPI_MAJOR_VERSION[ \t]+([0-9]+)")
      set(name "Open MPI")
      set(version "${CMAKE_MATCH_1}")
      foreach(part MINOR RELEASE)
        if(defines MATCHES "OMPI_${part}_VERSION[ \t]+([0-9]+)")
          string(APPEND version ".${CMAKE_MATCH_1}")
        endif()
      endforeach()
    endif()
    break()
  endforeach()
  set(${name_var} "${name}" PARENT_SCOPE)
  set(${version_var} "${version}" PARENT_SCOPE)
endfunction()
