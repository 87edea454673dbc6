# What the packaging (install.cmake) and the install test need to know of the MPI this build
# uses, found for C++ only (choreo's libraries are C++):
#   CHOREO_MPI_NAME, CHOREO_MPI_VERSION  "MPICH" or "Open MPI" and its version (or empty)
#   CHOREO_MPI_C_COMPILER                the same MPI's C compiler wrapper: what a C
#                                        consumer's -DMPI_C_COMPILER must name
#   CHOREO_PKGCONFIG_MPI                 the pkg-config module choreo.pc requires
# The last two may be set with -D where the guesses (the C wrapper beside the C++ one;
# Debian's and the MPIs' own module names) do not fit.
include(${CMAKE_CURRENT_LIST_DIR}/choreoMpiFlavour.cmake)
choreo_mpi_flavour(CXX CHOREO_MPI_NAME CHOREO_MPI_VERSION)
if(NOT CHOREO_MPI_NAME)
  message(STATUS "choreo: could not tell which MPI ${MPI_CXX_COMPILER} is (neither MPICH nor "
                 "Open MPI): find_package(choreo) will not check a consumer's MPI")
endif()

# The C wrapper beside the C++ one: mpicxx.mpich -> mpicc.mpich, mpic++ -> mpicc.
set(derived_c_compiler "")
if(MPI_CXX_COMPILER)
  get_filename_component(wrapper_dir "${MPI_CXX_COMPILER}" DIRECTORY)
  get_filename_component(wrapper_name "${MPI_CXX_COMPILER}" NAME)
  string(REGEX REPLACE "^mpi(cxx|c\\+\\+|CC)" "mpicc" c_wrapper_name "${wrapper_name}")
  if(NOT c_wrapper_name STREQUAL wrapper_name AND EXISTS "${wrapper_dir}/${c_wrapper_name}")
    set(derived_c_compiler "${wrapper_dir}/${c_wrapper_name}")
  endif()
endif()
# Derived at every configure (it follows MPI_CXX_COMPILER) unless set with -D.
if(NOT DEFINED CACHE{CHOREO_MPI_C_COMPILER})
  set(CHOREO_MPI_C_COMPILER "${derived_c_compiler}")
endif()

if(CHOREO_MPI_NAME STREQUAL "MPICH")
  set(default_pkgconfig_mpi mpich)
elseif(CHOREO_MPI_NAME STREQUAL "Open MPI")
  set(default_pkgconfig_mpi ompi-c)
else()
  set(default_pkgconfig_mpi "")
endif()
if(NOT DEFINED CACHE{CHOREO_PKGCONFIG_MPI})
  set(CHOREO_PKGCONFIG_MPI "${default_pkgconfig_mpi}")
endif()
