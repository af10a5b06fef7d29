# SPDX-License-Identifier: GPL-3.0-or-later
# reuse lint on the source tree: every file has a licence and a copyright, and every licence
# named has its text in LICENSES/. reuse asks git which files are the project's (build folders
# and results stay out of it), so where git cannot read the checkout (a tree mounted into
# another root without its .git) the check is skipped, not run on the wrong set of files.
find_program(REUSE reuse)
find_program(GIT git)
if(NOT REUSE)
  message("SKIPPED: reuse is not installed (Debian package reuse)")
  return()
endif()
if(NOT GIT)
  message("SKIPPED: git is not installed: reuse cannot tell the project's files from build output")
  return()
endif()
execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} rev-parse --show-toplevel
                RESULT_VARIABLE in_git OUTPUT_QUIET ERROR_QUIET)
if(NOT in_git EQUAL 0)
  message("SKIPPED: ${SOURCE_DIR} is not a git checkout git can read")
  return()
endif()
execute_process(COMMAND ${REUSE} --root ${SOURCE_DIR} lint
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "reuse lint failed:\n${out}")
endif()
string(REGEX MATCH "Files with license information: [0-9]+ / [0-9]+" summary "${out}")
message("reuse lint: ${summary}")
# Every source file also says its licence itself (packaging/spdx-headers.sh adds the line).
execute_process(COMMAND bash ${SOURCE_DIR}/packaging/spdx-headers.sh --check
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "source files without an SPDX line:\n${out}${err}")
endif()
