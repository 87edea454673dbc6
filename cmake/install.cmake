# Install rules and an exported package: another project does
#   find_package(choreo) and links choreo::choreo (and choreo::mpi for the executor,
#   choreo::persist for persistent collectives, choreo::resilient for the jitter-resilient
#   allreduce).
include(CMakePackageConfigHelpers)

install(TARGETS choreo_lib choreo_mpi choreo_persist choreo_resilient EXPORT choreoTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/choreo DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(choreo_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/choreo)
install(EXPORT choreoTargets NAMESPACE choreo:: DESTINATION ${choreo_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/choreoConfig.cmake.in
  ${PROJECT_BINARY_DIR}/choreoConfig.cmake INSTALL_DESTINATION ${choreo_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/choreoConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/choreoConfig.cmake ${PROJECT_BINARY_DIR}/choreoConfigVersion.cmake
  DESTINATION ${choreo_cmake_dir})
