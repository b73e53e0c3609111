# The man pages and the bash completion, made at build time by running the built placer
# (`placer help --man`, `placer help --bash-completion`): they come from the same tables as
# `placer COMMAND --help` (placer/cli/cmd-*.c), so they cannot disagree with it.
#   cmake -DPLACER=build/placer -DGZIP=/bin/gzip -DOUT=build/doc -P packaging/docs.cmake
# writes OUT/man1/placer.1.gz, OUT/man1/placer-COMMAND.1.gz (gzip -9n: no name or time
# stamp, as Debian wants them) and OUT/completion/placer; with -DCHANGELOG=FILE also
# OUT/changelog.gz. CMakeLists.txt installs them.
foreach(var PLACER GZIP OUT)
  if(NOT ${var})
    message(FATAL_ERROR "docs.cmake: -D${var}=... is missing")
  endif()
endforeach()

function(placer_run)
  cmake_parse_arguments(R "" "OUTPUT" "COMMAND" ${ARGN})
  execute_process(COMMAND ${R_COMMAND} OUTPUT_FILE ${R_OUTPUT} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "docs.cmake: '${R_COMMAND}' failed (${rc}): ${err}")
  endif()
endfunction()

file(REMOVE_RECURSE ${OUT}/man1 ${OUT}/completion)
file(MAKE_DIRECTORY ${OUT}/man1 ${OUT}/completion)
execute_process(COMMAND ${PLACER} help --commands OUTPUT_VARIABLE commands RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "docs.cmake: '${PLACER} help --commands' failed (${rc})")
endif()
string(REPLACE "\n" ";" commands "${commands}")
placer_run(COMMAND ${PLACER} help --man OUTPUT ${OUT}/man1/placer.1)
set(pages ${OUT}/man1/placer.1)
foreach(cmd ${commands})
  if(cmd)
    placer_run(COMMAND ${PLACER} help --man ${cmd} OUTPUT ${OUT}/man1/placer-${cmd}.1)
    list(APPEND pages ${OUT}/man1/placer-${cmd}.1)
  endif()
endforeach()
placer_run(COMMAND ${PLACER} help --bash-completion OUTPUT ${OUT}/completion/placer)
if(CHANGELOG)
  configure_file(${CHANGELOG} ${OUT}/changelog COPYONLY)
  list(APPEND pages ${OUT}/changelog)
endif()
foreach(page ${pages})
  execute_process(COMMAND ${GZIP} -9nf ${page} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "docs.cmake: gzip ${page} failed")
  endif()
endforeach()
file(TOUCH ${OUT}/stamp)
