# Read by cpack before it writes the packages (CPACK_PROJECT_CONFIG_FILE): it refuses packages
# that would lack their man pages and icons, or that would not install from Debian's archive.
if(CPACK_STRATA_MISSING_TOOLS)
  message(FATAL_ERROR "Strata: this build has no man pages or PNG icons: ${CPACK_STRATA_MISSING_TOOLS} "
                      "not found when it was configured. Run scripts/install-deps.sh --package, then "
                      "scripts/package.sh.")
endif()
if(CPACK_STRATA_HAVE_CUDA)
  message(FATAL_ERROR "Strata: this build has the CUDA backend, linked to CUDA libraries that no Debian "
                      "package provides: its packages would not install on Debian. scripts/package.sh "
                      "builds them in build-package/ with -DSTRATA_CUDA=OFF.")
endif()
