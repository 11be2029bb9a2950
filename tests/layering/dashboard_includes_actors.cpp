// The dashboard reads the pool directly; it never reaches the actors that write it.
#include "dashboard/dashboard_server.hpp"
#include "actors/pool_actor.hpp"
