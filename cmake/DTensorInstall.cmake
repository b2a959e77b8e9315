# Install rules and the CMake package `DTensor`:
#
#   cmake --install build --prefix P
#   find_package(DTensor REQUIRED CONFIG)   # with CMAKE_PREFIX_PATH=P
#   target_link_libraries(my-opt PRIVATE DTensor::DTensor)  # or DTensor::dtrt
#
# Included from the top-level CMakeLists.txt after lib/, tools/, runtime/ and
# unittests/, so every library those add is known here.
include(CMakePackageConfigHelpers)

set(DTENSOR_INSTALL_CMAKE_DIR lib/cmake/DTensor)

# The libraries of the umbrella: every add_mlir_library /
# add_mlir_dialect_library / add_mlir_conversion_library under lib/ (MLIR's
# helpers record each one in MLIR_ALL_LIBS and install it into the export
# set MLIRTargets). Libraries added under lib/ later are picked up without
# editing this file; test libraries (test/lib/) are not part of it.
get_property(_dtensor_all_libs GLOBAL PROPERTY MLIR_ALL_LIBS)
set(DTENSOR_LIBS)
foreach(_lib IN LISTS _dtensor_all_libs)
  get_target_property(_dir ${_lib} SOURCE_DIR)
  string(FIND "${_dir}/" "${PROJECT_SOURCE_DIR}/lib/" _pos)
  if(_pos EQUAL 0)
    list(APPEND DTENSOR_LIBS ${_lib})
  endif()
endforeach()
list(REMOVE_DUPLICATES DTENSOR_LIBS)
# Our own version on the shared objects, not LLVM's (llvm_add_library's default).
foreach(_lib IN LISTS DTENSOR_LIBS)
  get_target_property(_type ${_lib} TYPE)
  if(_type STREQUAL "SHARED_LIBRARY")
    set_target_properties(${_lib} PROPERTIES
      VERSION ${PROJECT_VERSION}
      SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  endif()
endforeach()
message(STATUS "DTensor::DTensor links: ${DTENSOR_LIBS}")

# The umbrella target DTensor::DTensor: headers (ours, then the generated
# .inc files) and every library above.
add_library(DTensor INTERFACE)
target_link_libraries(DTensor INTERFACE ${DTENSOR_LIBS})
target_include_directories(DTensor INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
  $<INSTALL_INTERFACE:include>)
install(TARGETS DTensor EXPORT MLIRTargets)

# Headers: include/dtensor/** (with the .td files, for downstream TableGen)
# and the generated .inc files.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/dtensor
  DESTINATION include
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td" PATTERN "*.def")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/dtensor
  DESTINATION include
  FILES_MATCHING PATTERN "*.inc" PATTERN "*.h"
  PATTERN "CMakeFiles" EXCLUDE)

# Tools.
foreach(_tool dtensor-opt dtensor-run)
  if(TARGET ${_tool})
    install(TARGETS ${_tool} RUNTIME DESTINATION bin)
  endif()
endforeach()

# The runtime: libdtrt and dtrt/*.h (the rules are in runtime/CMakeLists.txt,
# export set DTensorRuntimeTargets).

# The compiler libraries (installed by add_mlir_library into MLIRTargets) and
# the umbrella, as DTensor::<name>.
install(EXPORT MLIRTargets
  NAMESPACE DTensor::
  FILE DTensorTargets.cmake
  DESTINATION ${DTENSOR_INSTALL_CMAKE_DIR})

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/DTensorConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/DTensorConfig.cmake
  INSTALL_DESTINATION ${DTENSOR_INSTALL_CMAKE_DIR})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/DTensorConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cmake/DTensorConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/DTensorConfigVersion.cmake
  DESTINATION ${DTENSOR_INSTALL_CMAKE_DIR})
