// What the report library may use: its own headers and the wire bodies.
#include "messages/codec.hpp"
#include "report/charts.hpp"
#include "report/html_report.hpp"
#include "report/json_report.hpp"
#include "report/markdown_report.hpp"
