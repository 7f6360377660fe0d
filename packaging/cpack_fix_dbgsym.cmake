# CPack post-build script (CPACK_POST_BUILD_SCRIPTS): makes CPack's -dbgsym packages what Debian's
# are. CMake 3.25's CPackDeb writes their md5sums with the staging directory's absolute paths,
# leaves the .debug files executable, and gives them no /usr/share/doc (no copyright or
# changelog); dh_strip makes that directory a symbolic link to the main package's, which the
# strict dependency on it allows. Each .ddeb is unpacked, fixed and rebuilt (its Installed-Size
# stays right: the link takes no space).
find_program(DPKG_DEB dpkg-deb REQUIRED)
set(ddebs "${CPACK_PACKAGE_FILES}")
list(FILTER ddebs INCLUDE REGEX "-dbgsym_[^/]*\\.ddeb$")
foreach(ddeb IN LISTS ddebs)
  set(tree "${ddeb}.fix")
  file(REMOVE_RECURSE "${tree}")
  execute_process(COMMAND ${DPKG_DEB} --raw-extract "${ddeb}" "${tree}" COMMAND_ERROR_IS_FATAL ANY)
  execute_process(COMMAND ${DPKG_DEB} --field "${ddeb}" Package OUTPUT_VARIABLE package
                  OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  string(REGEX REPLACE "-dbgsym$" "" main_package "${package}")

  file(GLOB_RECURSE debug_files RELATIVE "${tree}" "${tree}/usr/lib/debug/*")
  set(md5sums "")
  foreach(path IN LISTS debug_files)
    file(CHMOD "${tree}/${path}" FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
    file(MD5 "${tree}/${path}" sum)
    string(APPEND md5sums "${sum}  ${path}\n")
  endforeach()
  file(WRITE "${tree}/DEBIAN/md5sums" "${md5sums}")
  file(MAKE_DIRECTORY "${tree}/usr/share/doc")
  file(CREATE_LINK "${main_package}" "${tree}/usr/share/doc/${package}" SYMBOLIC)

  execute_process(COMMAND ${DPKG_DEB} --root-owner-group -Zxz --build "${tree}" "${ddeb}"
                  OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
  file(REMOVE_RECURSE "${tree}")
endforeach()
