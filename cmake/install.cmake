# Installation (`cmake --install BUILD --prefix /opt/gpuregress`), included by the top-level
# CMakeLists.txt after the targets exist (the algorithms' too). The installed tree:
#   bin/gpuregress, bin/kmedoids_mpi        kmedoids_mpi beside gpuregress (the mpi_* variants
#                                           look there: km_mpirun.c)
#   lib/gpuregress/<Google Benchmark>       under its soname; both binaries' RPATH is
#                                           $ORIGIN/../lib/gpuregress (the GPU machines lack it)
#   lib/gpuregress/libsqlite3.a             SQLite's archive: runners link it in (gr_sqlite.cmake)
#   share/gpuregress/*.html                 the dashboard's page templates (dashboard.c looks
#                                           in <bin>/../share/gpuregress)
#   share/gpuregress/scripts/plot_*.gp      the gnuplot scripts of `gpuregress plot` (plot.c)
#   share/man/man1/gpuregress.1             doc/gpuregress.1, with the release's version and every
#                                           command's options (`gpuregress help --man`)
#   share/bash-completion/completions/gpuregress, share/zsh/site-functions/_gpuregress,
#   share/fish/vendor_completions.d/gpuregress.fish   `gpuregress completion SHELL`, at build time
# A build folder keeps working on its own (RPATH $ORIGIN, share/ and scripts/ beside the binary).
set(GR_INSTALL_LIB lib/gpuregress)
set(GR_INSTALL_DATA share/gpuregress)

set(GR_INSTALL_PROGRAMS gpuregress)
if(TARGET kmedoids_mpi) # algorithms/kmedoids
  list(APPEND GR_INSTALL_PROGRAMS kmedoids_mpi)
endif()
set_target_properties(${GR_INSTALL_PROGRAMS} PROPERTIES
  INSTALL_RPATH "$ORIGIN/../${GR_INSTALL_LIB}"
  INSTALL_RPATH_USE_LINK_PATH ON) # Open MPI's library folder too
install(TARGETS ${GR_INSTALL_PROGRAMS} RUNTIME DESTINATION bin)
install(FILES "${GR_BENCH_LIB}" DESTINATION ${GR_INSTALL_LIB} RENAME ${GR_BENCH_SONAME})
# SQLite's archive (cmake/gr_sqlite.cmake), for the runners built against the install: they
# carry SQLite inside them as gpuregress does
if(GR_SQLITE_STATIC)
  install(FILES "${GR_SQLITE_ARCHIVE}" DESTINATION ${GR_INSTALL_LIB} RENAME libsqlite3.a)
  set(GR_PC_SQLITE "\${prefix}/${GR_INSTALL_LIB}/libsqlite3.a")
else()
  set(GR_PC_SQLITE "-lsqlite3")
endif()
file(GLOB GR_PAGE_TEMPLATES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/harness/report/*.html)
install(FILES ${GR_PAGE_TEMPLATES} DESTINATION ${GR_INSTALL_DATA})
install(FILES ${GR_GNUPLOT_SCRIPTS} DESTINATION ${GR_INSTALL_DATA}/scripts)
# The man page: doc/gpuregress.1 with the release's version in its title line and, at its
# marker, every command's options as the runner prints them from its option tables
# (gpuregress help --man): generated after the runner is linked, so it never drifts.
set(GR_MANPAGE ${CMAKE_BINARY_DIR}/share/man/gpuregress.1)
add_custom_command(OUTPUT ${GR_MANPAGE}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/share/man
  COMMAND $<TARGET_FILE:gpuregress> help --man > ${CMAKE_BINARY_DIR}/share/man/options.roff
  COMMAND ${CMAKE_COMMAND} -DSRC=${CMAKE_SOURCE_DIR}/doc/gpuregress.1
          -DOPTIONS=${CMAKE_BINARY_DIR}/share/man/options.roff -DVERSION=${PROJECT_VERSION}
          -DOUT=${GR_MANPAGE} -P ${CMAKE_SOURCE_DIR}/cmake/manpage.cmake
  DEPENDS gpuregress ${CMAKE_SOURCE_DIR}/doc/gpuregress.1 ${CMAKE_SOURCE_DIR}/cmake/manpage.cmake
  COMMENT "generating the man page of gpuregress")
install(FILES ${GR_MANPAGE} DESTINATION share/man/man1)

# The completions of bash, zsh and fish, generated from the same tables and the registry.
set(GR_COMPLETION ${CMAKE_BINARY_DIR}/share/bash-completion/gpuregress)
set(GR_COMPLETION_ZSH ${CMAKE_BINARY_DIR}/share/zsh/site-functions/_gpuregress)
set(GR_COMPLETION_FISH ${CMAKE_BINARY_DIR}/share/fish/vendor_completions.d/gpuregress.fish)
add_custom_command(OUTPUT ${GR_COMPLETION} ${GR_COMPLETION_ZSH} ${GR_COMPLETION_FISH}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/share/bash-completion
          ${CMAKE_BINARY_DIR}/share/zsh/site-functions ${CMAKE_BINARY_DIR}/share/fish/vendor_completions.d
  COMMAND $<TARGET_FILE:gpuregress> completion bash > ${GR_COMPLETION}
  COMMAND $<TARGET_FILE:gpuregress> completion zsh > ${GR_COMPLETION_ZSH}
  COMMAND $<TARGET_FILE:gpuregress> completion fish > ${GR_COMPLETION_FISH}
  DEPENDS gpuregress
  COMMENT "generating the completions of gpuregress")
add_custom_target(gr_completion ALL DEPENDS ${GR_COMPLETION} ${GR_MANPAGE})
install(FILES ${GR_COMPLETION} DESTINATION share/bash-completion/completions)
install(FILES ${GR_COMPLETION_ZSH} DESTINATION share/zsh/site-functions)
install(FILES ${GR_COMPLETION_FISH} DESTINATION share/fish/vendor_completions.d)

# ---- the library: public headers, static libraries, CMake package, pkg-config, licence ------
#   include/gpuregress/*.h                  the public API (alg.h: what is stable)
#   lib/libgpuregress.a                     gpuregress::core: the harness and the built-ins
#   lib/libgpuregress_cli.a                 gpuregress::cli: the commands and main()
#   lib/cmake/gpuregress/                   gpuregressConfig.cmake (gpuregress_add_executable),
#                                           ConfigVersion (same major version), Targets,
#                                           gpuregress_runtime.cmake (the files beside a runner),
#                                           gitinfo.cmake (the runner's name and commit)
#   lib/pkgconfig/gpuregress.pc             the same for other build systems
#   share/doc/gpuregress/LICENSE            Apache-2.0
include(CMakePackageConfigHelpers)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/gpuregress DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS gpuregress_core gpuregress_cli EXPORT gpuregressTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
set(GR_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gpuregress)
install(EXPORT gpuregressTargets NAMESPACE gpuregress:: DESTINATION ${GR_CMAKE_DIR})
file(STRINGS ${CMAKE_SOURCE_DIR}/include/gpuregress/version.h GR_API_LINE
     REGEX "^#define GR_API_VERSION ")
string(REGEX MATCH "[0-9]+" GR_API_VERSION "${GR_API_LINE}")
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/gpuregressConfig.cmake.in
  ${CMAKE_BINARY_DIR}/gpuregressConfig.cmake INSTALL_DESTINATION ${GR_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR GR_INSTALL_DATA GR_INSTALL_LIB)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/gpuregressConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/gpuregressConfig.cmake
              ${CMAKE_BINARY_DIR}/gpuregressConfigVersion.cmake
              ${CMAKE_SOURCE_DIR}/cmake/gpuregress_runtime.cmake
              ${CMAKE_SOURCE_DIR}/cmake/gitinfo.cmake DESTINATION ${GR_CMAKE_DIR})
configure_file(${CMAKE_SOURCE_DIR}/cmake/gpuregress.pc.in ${CMAKE_BINARY_DIR}/gpuregress.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/gpuregress.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
install(FILES ${CMAKE_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
