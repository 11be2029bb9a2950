// The simulated cluster's hidden truth is for paratune-sim, not the product.
#include "actors/runtime.hpp"
#include "sim/gpu/simulated_cluster.hpp"
