# The fuzz build (-DPARATUNE_FUZZ=ON, clang only): every library is compiled
# with libFuzzer's coverage instrumentation (fuzzer-no-link) and with ASan
# and UBSan, so that a memory error or undefined behaviour anywhere under a
# harness stops the run. UBSan does not recover: a report is a crash, as
# libFuzzer needs it to be. The harnesses in fuzz/ link the fuzzer itself
# (paratune_fuzz_harness).
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "PARATUNE_FUZZ needs clang (libFuzzer): configure with "
                      "-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++")
endif()

set(PARATUNE_FUZZ_SANITIZERS "address,undefined" CACHE STRING
    "Sanitizers of the fuzz build, besides the fuzzer")
add_compile_options(-fsanitize=fuzzer-no-link,${PARATUNE_FUZZ_SANITIZERS}
                    -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1)
# Libraries are linked into the harnesses only, but a shared object or a
# helper executable would need the sanitizer runtimes too.
add_link_options(-fsanitize=${PARATUNE_FUZZ_SANITIZERS})

# paratune_fuzz_harness(NAME SOURCE LIBRARIES...): <build>/bin/fuzz_NAME, a
# libFuzzer executable of one harness file.
function(paratune_fuzz_harness name source)
  add_executable(fuzz_${name} ${source})
  paratune_use_pch(fuzz_${name})
  target_link_libraries(fuzz_${name} PRIVATE ${ARGN})
  target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer,${PARATUNE_FUZZ_SANITIZERS})
  # ctest -L fuzz: the smoke of this harness (10 s on a copy of its seeds).
  add_test(NAME fuzz.${name}
           COMMAND ${CMAKE_SOURCE_DIR}/bench/fuzz/run --no-build --smoke ${name})
  set_tests_properties(fuzz.${name} PROPERTIES LABELS fuzz TIMEOUT 120
                       ENVIRONMENT PARATUNE_FUZZ_BUILD=${CMAKE_BINARY_DIR})
endfunction()
