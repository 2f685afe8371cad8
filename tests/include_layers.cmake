# The layering rule of src/ (issue 16): a file may include headers of its own layer and of the
# layers below it, never of a layer above it nor of a peer on the same level. Fails (listing every
# offending #include) when one does. The build mirrors the same order with one static library per
# layer (CMakeLists.txt, nnfold_layer).
#
#   cmake -DSRC=<repo>/src -P tests/include_layers.cmake          check a source tree
#   cmake -DSELF_TEST=ON -DWORK=<dir> -P tests/include_layers.cmake
#       writes small trees under WORK with an upward include, a peer include, a header of an unknown
#       directory and a clean tree, and fails unless the check rejects the first three and accepts
#       the last (so the check itself cannot silently pass everything).
cmake_minimum_required(VERSION 3.16)

# Layer of a path relative to src/ (a directory prefix; the longest match wins), as
# "<rank>:<group>". Higher ranks may include lower ones; equal ranks only their own group.
set(NNFOLD_LAYERS
  "core=0:core" "version.h=0:core"
  "model=1:model"
  "kernels=2:kernels" "kernels/wasm=2:kernels"
  "layers=3:layers" "layers/wasm=3:layers"
  "analysis=4:analysis"
  "io=5:io" "io/onnx=5:io"
  "passes=5:passes"
  "runtime=6:runtime"
  "quant=7:quant"
  "api=8:api"
  "cli=9:cli")

# Sets `out` to "<rank>:<group>" for `rel` (a path under src/), or "" when no layer claims it.
function(nnfold_layer_of rel out)
  set(best "")
  set(best_len -1)
  foreach(entry ${NNFOLD_LAYERS})
    string(REGEX MATCH "^([^=]+)=(.+)$" _ "${entry}")
    set(prefix "${CMAKE_MATCH_1}")
    set(value "${CMAKE_MATCH_2}")
    if(rel STREQUAL prefix OR rel MATCHES "^${prefix}/")
      string(LENGTH "${prefix}" len)
      if(len GREATER best_len)
        set(best "${value}")
        set(best_len ${len})
      endif()
    endif()
  endforeach()
  set(${out} "${best}" PARENT_SCOPE)
endfunction()

# "<rank>:<group>" -> `rank`, `group`.
function(nnfold_split_layer value rank group)
  string(REGEX MATCH "^([0-9]+):(.+)$" _ "${value}")
  set(${rank} ${CMAKE_MATCH_1} PARENT_SCOPE)
  set(${group} "${CMAKE_MATCH_2}" PARENT_SCOPE)
endfunction()

# Sets `out` to the list of violations ("file: #include \"x\" (why)") found under `src`.
function(nnfold_check_tree src out)
  file(GLOB_RECURSE files RELATIVE "${src}" "${src}/*.h" "${src}/*.cpp")
  list(SORT files)
  set(problems "")
  foreach(rel ${files})
    nnfold_layer_of("${rel}" from)
    if(from STREQUAL "")
      list(APPEND problems "${rel}: in no layer (add its directory to NNFOLD_LAYERS in tests/include_layers.cmake)")
      continue()
    endif()
    nnfold_split_layer("${from}" from_rank from_group)
    file(STRINGS "${src}/${rel}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(line ${lines})
      string(REGEX MATCH "\"([^\"]+)\"" _ "${line}")
      set(inc "${CMAKE_MATCH_1}")
      nnfold_layer_of("${inc}" to)
      if(to STREQUAL "")
        list(APPEND problems "${rel}: #include \"${inc}\" (a header in no layer)")
        continue()
      endif()
      nnfold_split_layer("${to}" to_rank to_group)
      if(to_rank GREATER from_rank)
        list(APPEND problems "${rel}: #include \"${inc}\" (${from_group} includes the higher layer ${to_group})")
      elseif(to_rank EQUAL from_rank AND NOT to_group STREQUAL from_group)
        list(APPEND problems "${rel}: #include \"${inc}\" (${from_group} includes its peer ${to_group})")
      endif()
    endforeach()
  endforeach()
  set(${out} "${problems}" PARENT_SCOPE)
endfunction()

function(nnfold_write_tree root files_and_includes)
  file(REMOVE_RECURSE "${root}")
  foreach(pair ${files_and_includes})
    string(REGEX MATCH "^([^>]+)>(.*)$" _ "${pair}")
    file(WRITE "${root}/${CMAKE_MATCH_1}" "#include \"${CMAKE_MATCH_2}\"\n")
  endforeach()
endfunction()

if(SELF_TEST)
  if(NOT WORK)
    message(FATAL_ERROR "SELF_TEST needs -DWORK=<scratch directory>")
  endif()
  # clean: every include points down or within its layer
  nnfold_write_tree("${WORK}/clean" "layers/relu.cpp>model/graph.h;layers/wasm/x.cpp>layers/layer.h;io/onnx/a.cpp>io/ncnn_io.h;cli/main.cpp>version.h;api/model.cpp>passes/optimizer.h")
  nnfold_check_tree("${WORK}/clean" p)
  if(p)
    message(FATAL_ERROR "self-test: a clean tree was rejected: ${p}")
  endif()
  # each of these trees holds one violation the check must report
  set(cases
    "upward|model/graph.cpp>runtime/net.h"
    "upward into a subdirectory|io/param_reader.cpp>api/model.h"
    "peer|passes/optimizer.cpp>io/ncnn_io.h"
    "kernels above layers|kernels/gemm.cpp>layers/layer.h"
    "unknown header directory|model/graph.cpp>somewhere/x.h")
  foreach(c ${cases})
    string(REGEX MATCH "^([^|]+)\\|(.+)$" _ "${c}")
    set(name "${CMAKE_MATCH_1}")
    nnfold_write_tree("${WORK}/bad" "layers/ok.cpp>model/graph.h;${CMAKE_MATCH_2}")
    nnfold_check_tree("${WORK}/bad" p)
    list(LENGTH p n)
    if(NOT n EQUAL 1)
      message(FATAL_ERROR "self-test '${name}': expected exactly one violation, got ${n}: ${p}")
    endif()
    message(STATUS "self-test '${name}' detected: ${p}")
  endforeach()
  file(REMOVE_RECURSE "${WORK}/clean" "${WORK}/bad")
  message(STATUS "include layering self-test passed")
  return()
endif()

if(NOT SRC OR NOT IS_DIRECTORY "${SRC}")
  message(FATAL_ERROR "usage: cmake -DSRC=<repo>/src -P include_layers.cmake")
endif()
nnfold_check_tree("${SRC}" problems)
if(problems)
  string(REPLACE ";" "\n  " text "${problems}")
  message(FATAL_ERROR "includes against the layer order (core -> model -> kernels -> layers -> analysis -> "
                      "io | passes -> runtime -> api -> cli):\n  ${text}")
endif()
message(STATUS "include layering: every #include under ${SRC} points down or within its layer")
