# gpuregress::sqlite3: the SQLite library the harness links, static where the system has its
# archive (Debian's and Ubuntu's libsqlite3-dev ship libsqlite3.a), so that gpuregress, the
# test programs and every runner built against an install carry SQLite inside them: a build
# folder or an install copied to a GPU machine needs only the NVIDIA driver there, and `ldd`
# names no libsqlite3. Without the archive it falls back to the shared library (SQLite::SQLite3)
# and says so. Included after find_package(SQLite3). cmake/install.cmake installs the archive
# as lib/gpuregress/libsqlite3.a and gpuregressConfig.cmake defines the same target from it.
find_package(Threads REQUIRED)
find_library(GR_SQLITE_ARCHIVE NAMES libsqlite3.a
             HINTS ${SQLite3_INCLUDE_DIRS}/../lib ${SQLite3_INCLUDE_DIRS}/../lib/${CMAKE_LIBRARY_ARCHITECTURE})
add_library(gpuregress::sqlite3 INTERFACE IMPORTED GLOBAL)
if(GR_SQLITE_ARCHIVE)
  set(GR_SQLITE_STATIC ON)
  # the archive's own needs: threads, dlopen (extensions are off in the store, but the
  # library references the symbols), libm
  target_link_libraries(gpuregress::sqlite3 INTERFACE ${GR_SQLITE_ARCHIVE} Threads::Threads
                        ${CMAKE_DL_LIBS} m)
  target_include_directories(gpuregress::sqlite3 INTERFACE ${SQLite3_INCLUDE_DIRS})
else()
  set(GR_SQLITE_STATIC OFF)
  message(STATUS "libsqlite3.a not found: gpuregress links the shared libsqlite3 "
                 "(a machine that runs the build then needs libsqlite3.so.0)")
  target_link_libraries(gpuregress::sqlite3 INTERFACE SQLite::SQLite3)
endif()
