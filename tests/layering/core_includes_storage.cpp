// core does no I/O: the pool is out of its reach.
#include "core/diagnosis/analyzer.hpp"
#include "storage/message_pool.hpp"
