# Debian's libcaf-dev ships neither a CMake package nor a .pc file.
# Model: tenzir/vast 2020.12 cmake/FindCAF.cmake (find_path + find_library).
find_path(CAF_INCLUDE_DIR caf/all.hpp)
find_library(CAF_CORE_LIBRARY caf_core)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CAF DEFAULT_MSG CAF_CORE_LIBRARY CAF_INCLUDE_DIR)
if(CAF_FOUND AND NOT TARGET caf::core)
  add_library(caf::core UNKNOWN IMPORTED GLOBAL)
  set_target_properties(caf::core PROPERTIES
    IMPORTED_LOCATION "${CAF_CORE_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${CAF_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES Threads::Threads)
endif()
