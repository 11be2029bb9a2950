# How the build stays fast (docs/benchmarks.md, "Build time", has the numbers).
#
# 1. Precompiled headers, three sets shared by every target through REUSE_FROM:
#      base     the standard library, fmt, nlohmann/json and yaml-cpp: core/,
#               adapters/, sim/, validation/, the simulators and benchmarks;
#      runtime  base plus CAF, msgpack, ZeroMQ, spdlog and RocksDB: messages/
#               and everything above it (actors, daemon, the paratune CLI);
#      test     runtime plus GoogleTest: the test executables.
#    Each set is compiled once, by a small anchor library, and every target of
#    the set reads it. core/ never gets the runtime set, so nothing of CAF is
#    visible there (the layering rule in docs/architecture.md).
#    A directory names its set with `set(PARATUNE_PCH base|runtime|test)`
#    before it declares targets; paratune_library and the test and tool
#    targets pick it up through paratune_use_pch.
# 2. Unity builds (PARATUNE_UNITY, on by default): all of a target's sources
#    are compiled as one translation unit (PARATUNE_UNITY_BATCH sets fewer),
#    so the headers and the templates they share (CAF's behaviors, msgpack's
#    adaptors, GoogleTest's macros, CLI11's validators) are compiled once per
#    target instead of once per file. Turn it off for a quicker edit-compile loop on a single file:
#    cmake -DPARATUNE_UNITY=OFF.
# 3. The same compile definitions everywhere, so that one precompiled header
#    is valid for every target of its set (GCC refuses a PCH whose macros
#    differ from the file's, and then parses the headers again; CMake passes
#    -Winvalid-pch, which makes that a warning).
# 4. -O2 for Release instead of CMake's -O3: -O3's extra inlining and
#    vectorisation cost 10-15% of the compile time (docs/benchmarks.md,
#    "Build time", has the benchmarks re-run at -O2).
#    The tests' own code is compiled at -O1 (PARATUNE_TEST_OPTIMIZATION): a
#    quarter less compile time for GoogleTest's expanded macros, while the
#    libraries they test, and the executables the end-to-end tests run, keep
#    -O2.
# 5. ccache when it is installed (no measured figure relies on it).

option(PARATUNE_PCH_ENABLED "Precompiled headers (cmake/paratune_build_speed.cmake)" ON)
option(PARATUNE_UNITY "Unity builds of the libraries, tools and tests" ON)
set(PARATUNE_UNITY_BATCH 0 CACHE STRING "Source files per unity translation unit (0: a whole target)")

set(PARATUNE_RELEASE_OPT -O2 CACHE STRING "Release optimisation (CMake's own default is -O3)")
string(REPLACE "-O3" "${PARATUNE_RELEASE_OPT}" CMAKE_CXX_FLAGS_RELEASE "${CMAKE_CXX_FLAGS_RELEASE}")
set(PARATUNE_TEST_OPTIMIZATION $<$<CONFIG:Release>:-O1>)

# What the imported targets would add to some targets and not to others.
add_compile_definitions(BOOST_ALL_NO_LIB FMT_SHARED MSGPACK_DEFAULT_API_VERSION=3
  SIMDJSON_THREADS_ENABLED=1 SPDLOG_COMPILED_LIB SPDLOG_FMT_EXTERNAL SPDLOG_SHARED_LIB)

find_program(PARATUNE_CCACHE ccache)
if(PARATUNE_CCACHE)
  # ccache hashes a precompiled header only with these sloppiness settings.
  set(CMAKE_CXX_COMPILER_LAUNCHER
      ${CMAKE_COMMAND} -E env
      "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime"
      ${PARATUNE_CCACHE})
endif()

if(PARATUNE_UNITY)
  set(CMAKE_UNITY_BUILD ON)
  set(CMAKE_UNITY_BUILD_BATCH_SIZE ${PARATUNE_UNITY_BATCH})
endif()

set(paratune_pch_base
  <algorithm> <array> <atomic> <charconv> <chrono> <cmath> <cstddef> <cstdint> <cstdio>
  <cstdlib> <cstring> <deque> <filesystem> <fstream> <functional> <iostream> <limits> <map>
  <memory> <mutex> <optional> <random> <set> <sstream> <stdexcept> <string> <string_view>
  <thread> <tuple> <unordered_map> <utility> <variant> <vector>
  <fmt/format.h> <nlohmann/json.hpp> <yaml-cpp/yaml.h>)
set(paratune_pch_runtime ${paratune_pch_base}
  <caf/all.hpp> <msgpack.hpp> <zmq.hpp> <zmq_addon.hpp> <spdlog/spdlog.h> <rocksdb/db.h>)
# CLI11 stays out of every set: its header defines validator objects that each
# translation unit constructs, so a precompiled CLI11 would cost every file
# that never parses a command line the code generation of those objects.
set(paratune_pch_test ${paratune_pch_runtime} <gtest/gtest.h>)
# The libraries whose include paths each set's headers need.
set(paratune_pch_base_libraries fmt::fmt nlohmann_json::nlohmann_json yaml-cpp)
set(paratune_pch_runtime_libraries ${paratune_pch_base_libraries} caf::core msgpackc-cxx
  cppzmq spdlog::spdlog RocksDB::rocksdb-shared)
set(paratune_pch_test_libraries ${paratune_pch_runtime_libraries} GTest::gtest)

# paratune_pch_anchor(SET): the library that compiles SET's precompiled header.
function(paratune_pch_anchor set)
  set(anchor paratune_pch_${set})
  set(source ${CMAKE_BINARY_DIR}/pch/${set}.cpp)
  file(WRITE ${source} "// The anchor of the ${set} precompiled header.\n")
  add_library(${anchor} STATIC ${source})
  target_link_libraries(${anchor} PRIVATE ${paratune_pch_${set}_libraries})
  target_precompile_headers(${anchor} PRIVATE ${paratune_pch_${set}})
  set_target_properties(${anchor} PROPERTIES UNITY_BUILD OFF)
endfunction()

# paratune_use_pch(TARGET): TARGET reads its directory's set (PARATUNE_PCH).
function(paratune_use_pch target)
  if(NOT PARATUNE_PCH_ENABLED OR NOT PARATUNE_PCH)
    return()
  endif()
  target_precompile_headers(${target} REUSE_FROM paratune_pch_${PARATUNE_PCH})
endfunction()
