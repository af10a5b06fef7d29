# SPDX-License-Identifier: GPL-3.0-or-later
# -DCOMMPROF_RANK_ONLY=ON must configure commprof-rank alone, with Qt and the other desktop
# dependencies made unfindable: a GPU machine with only a CUDA libtorch builds it that way.
set(dir ${BINARY_DIR}/rank-only-check)
file(REMOVE_RECURSE ${dir})
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${dir} -G ${GENERATOR} -DCOMMPROF_RANK_ONLY=ON
          -DCMAKE_DISABLE_FIND_PACKAGE_Qt6=ON -DCMAKE_DISABLE_FIND_PACKAGE_QCustomPlotQt6=ON
          -DCMAKE_DISABLE_FIND_PACKAGE_yaml-cpp=ON -DCMAKE_DISABLE_FIND_PACKAGE_simdjson=ON
          -DCMAKE_DISABLE_FIND_PACKAGE_SQLite3=ON
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rank-only configure failed:\n${out}\n${err}")
endif()
file(GLOB_RECURSE build_files ${dir}/build.ninja ${dir}/Makefile ${dir}/CMakeFiles/*/link.txt)
foreach(f ${build_files})
  file(STRINGS ${f} hits REGEX "libQt6|commprof_core|commprof-workbench")
  if(hits)
    list(GET hits 0 first)
    message(FATAL_ERROR "rank-only build references Qt or core in ${f}: ${first}")
  endif()
endforeach()
file(REMOVE_RECURSE ${dir})
message(STATUS "rank-only configure: ok")
