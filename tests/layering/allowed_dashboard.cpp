// What the dashboard may use: itself, the pool, the report's summary and charts.
#include "dashboard/dashboard_server.hpp"
#include "storage/message_pool.hpp"
#include "report/charts.hpp"
#include "report/session_summary.hpp"
