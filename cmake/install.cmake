# Install rules and an exported package: another project does
#   find_package(choreo) and links choreo::choreo (and choreo::mpi for the executor,
#   choreo::persist for persistent collectives, choreo::resilient for the jitter-resilient
#   allreduce); a C program links choreo::capi (or -lchoreo with pkg-config: choreo.pc).
include(CMakePackageConfigHelpers)

install(TARGETS choreo_lib choreo_mpi choreo_persist choreo_resilient choreo_capi
  EXPORT choreoTargets
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
install(FILES ${PROJECT_SOURCE_DIR}/cmake/choreoMpiFlavour.cmake DESTINATION ${choreo_cmake_dir})

# choreo.pc, relocatable: its prefix is found from where the file is (${pcfiledir}), so an
# install with `cmake --install --prefix P` works from P whatever CMAKE_INSTALL_PREFIX was.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(CHOREO_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(CHOREO_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH pc_to_prefix "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
  string(REGEX REPLACE "/$" "" pc_to_prefix "${pc_to_prefix}")
  set(CHOREO_PC_PREFIX "\${pcfiledir}/${pc_to_prefix}")
  set(CHOREO_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(CHOREO_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(CHOREO_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/choreo.pc.in ${PROJECT_BINARY_DIR}/choreo.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/choreo.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
