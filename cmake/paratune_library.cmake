# The build enforces the layering in docs/architecture.md.
#
# Sources include headers by their path from the repository root
# ("core/perf/perf_model.hpp"), but no target sees the repository root.
# Each library instead gets an include root of its own under
# build/include/<library>/, holding links to its own folder's headers only.
# A target sees the roots of the libraries it links (PUBLIC, so the edges
# are transitive) and nothing else: an include across an edge that the link
# graph does not have fails with "No such file or directory".
# tests/layering checks that it does.

# paratune_stage_headers(ROOT DIR [RECURSE]): links DIR's *.hpp (and those of
# its subfolders with RECURSE) under ROOT at their repository-relative paths.
# CONFIGURE_DEPENDS re-runs this when a header is added or removed.
function(paratune_stage_headers root dir)
  if(ARGV2 STREQUAL "RECURSE")
    file(GLOB_RECURSE headers CONFIGURE_DEPENDS ${dir}/*.hpp)
  else()
    file(GLOB headers CONFIGURE_DEPENDS ${dir}/*.hpp)
  endif()
  file(REMOVE_RECURSE ${root})
  file(MAKE_DIRECTORY ${root})
  foreach(header ${headers})
    file(RELATIVE_PATH rel ${CMAKE_SOURCE_DIR} ${header})
    get_filename_component(rel_dir ${rel} DIRECTORY)
    file(MAKE_DIRECTORY ${root}/${rel_dir})
    file(CREATE_LINK ${header} ${root}/${rel} SYMBOLIC)
  endforeach()
endfunction()

# paratune_library(NAME DIR DEPS...): a static library of every .cpp in DIR
# (one folder, not its subfolders), linked PUBLIC to DEPS. A folder with no
# sources becomes an INTERFACE library.
function(paratune_library name dir)
  set(root ${CMAKE_BINARY_DIR}/include/${name})
  paratune_stage_headers(${root} ${dir})
  file(GLOB sources CONFIGURE_DEPENDS ${dir}/*.cpp)
  if(sources)
    add_library(${name} STATIC ${sources})
    target_include_directories(${name} PUBLIC ${root})
    target_link_libraries(${name} PUBLIC ${ARGN})
    paratune_use_pch(${name})
  else()
    add_library(${name} INTERFACE)
    target_include_directories(${name} INTERFACE ${root})
    target_link_libraries(${name} INTERFACE ${ARGN})
  endif()
endfunction()

# paratune_private_headers(TARGET DIR): an executable's own headers (tools,
# tests, benchmarks), visible to that target alone.
function(paratune_private_headers target dir)
  set(root ${CMAKE_BINARY_DIR}/include/${target})
  paratune_stage_headers(${root} ${dir} RECURSE)
  target_include_directories(${target} PRIVATE ${root})
endfunction()
