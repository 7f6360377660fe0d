# CPack pre-build script (CPACK_PRE_BUILD_SCRIPTS), run on the staged files before CPackDeb
# splits off the debug information and strips: removes the .comment and .note sections from the
# binaries, as Debian's dh_strip does (objcopy --strip-unneeded keeps them; lintian:
# binary-has-unneeded-section).
file(GLOB binaries "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*/usr/bin/*")
foreach(binary IN LISTS binaries)
  execute_process(COMMAND objcopy --remove-section=.comment --remove-section=.note "${binary}"
                  RESULT_VARIABLE status ERROR_VARIABLE error)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "objcopy could not remove .comment and .note from ${binary}: ${error}")
  endif()
endforeach()
