# The dependency rules of docs/architecture.md, checked on the sources themselves:
# only app/rank includes torch, and core never includes Qt Widgets.
file(GLOB_RECURSE not_rank
     ${SOURCE_DIR}/core/*.h ${SOURCE_DIR}/core/*.cpp
     ${SOURCE_DIR}/widgets/*.h ${SOURCE_DIR}/widgets/*.cpp
     ${SOURCE_DIR}/app/cli/*.h ${SOURCE_DIR}/app/cli/*.cpp
     ${SOURCE_DIR}/app/workbench/*.h ${SOURCE_DIR}/app/workbench/*.cpp)
set(bad "")
foreach(f ${not_rank})
  file(STRINGS ${f} hits REGEX "torch/")
  if(hits)
    list(APPEND bad "${f}: mentions torch/")
  endif()
endforeach()
file(GLOB_RECURSE core_files ${SOURCE_DIR}/core/*.h ${SOURCE_DIR}/core/*.cpp)
foreach(f ${core_files})
  file(STRINGS ${f} hits REGEX "#include *<(QtWidgets|QWidget|QMainWindow|QApplication|QDialog|QLabel|QPushButton)")
  if(hits)
    list(APPEND bad "${f}: core includes a Qt Widgets header")
  endif()
endforeach()
file(GLOB_RECURSE rank_files ${SOURCE_DIR}/app/rank/*.h ${SOURCE_DIR}/app/rank/*.cpp)
foreach(f ${rank_files})
  file(STRINGS ${f} hits REGEX "#include *<Q")
  if(hits)
    list(APPEND bad "${f}: app/rank includes Qt")
  endif()
endforeach()
if(bad)
  string(REPLACE ";" "\n" msg "${bad}")
  message(FATAL_ERROR "layering violations:\n${msg}")
endif()
message(STATUS "layering: ok")
