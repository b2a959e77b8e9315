//===- DeviceChoiceTest.cpp - the GPU of a rank from its local rank -------===//

#include "gpu/DeviceChoice.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

using namespace dtrt;

namespace {

/// A fake environment.
std::function<const char *(const char *)>
environment(const std::map<std::string, std::string> &vars) {
  return [vars](const char *name) -> const char * {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(DeviceChoice, LocalRankFromTheLauncher) {
  EXPECT_EQ(localRankFromEnv(environment({})), std::nullopt);
  EXPECT_EQ(
      localRankFromEnv(environment({{"OMPI_COMM_WORLD_LOCAL_RANK", "3"}})), 3);
  EXPECT_EQ(localRankFromEnv(environment({{"MPI_LOCALRANKID", "2"}})), 2);
  EXPECT_EQ(localRankFromEnv(environment({{"SLURM_LOCALID", "5"}})), 5);
  // Open MPI's variable wins; an empty one is skipped.
  EXPECT_EQ(localRankFromEnv(environment(
                {{"OMPI_COMM_WORLD_LOCAL_RANK", "1"}, {"SLURM_LOCALID", "7"}})),
            1);
  EXPECT_EQ(localRankFromEnv(environment(
                {{"OMPI_COMM_WORLD_LOCAL_RANK", ""}, {"SLURM_LOCALID", "7"}})),
            7);
  EXPECT_EQ(localRankFromEnv(environment({{"MPI_LOCALRANKID", "-1"}})),
            std::nullopt);
  EXPECT_EQ(localRankFromEnv(environment({{"MPI_LOCALRANKID", "2x"}})),
            std::nullopt);
}

TEST(DeviceChoice, LocalRankModuloDevices) {
  EXPECT_EQ(chooseDevice(0, 8), 0);
  EXPECT_EQ(chooseDevice(7, 8), 7);
  EXPECT_EQ(chooseDevice(9, 8), 1);
  EXPECT_EQ(chooseDevice(3, 1), 0);
  EXPECT_EQ(chooseDevice(3, 0), 0);
}

} // namespace
