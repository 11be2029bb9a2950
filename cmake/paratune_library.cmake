# paratune_library(NAME DIR DEPS...): a static library of every .cpp in DIR.
# Globbing keeps the per-folder CMakeLists short; CONFIGURE_DEPENDS re-globs
# when a file is added. A folder with no sources yet becomes an INTERFACE
# library so that targets depending on it still configure.
function(paratune_library name dir)
  file(GLOB sources CONFIGURE_DEPENDS ${dir}/*.cpp)
  if(sources)
    add_library(${name} STATIC ${sources})
    target_include_directories(${name} PUBLIC ${CMAKE_SOURCE_DIR})
    target_link_libraries(${name} PUBLIC ${ARGN})
  else()
    add_library(${name} INTERFACE)
    target_include_directories(${name} INTERFACE ${CMAKE_SOURCE_DIR})
    target_link_libraries(${name} INTERFACE ${ARGN})
  endif()
endfunction()
