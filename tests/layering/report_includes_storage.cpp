// The report library renders what it is given; reading the pool is the
// command's job.
#include "report/session_summary.hpp"
#include "storage/message_pool.hpp"
