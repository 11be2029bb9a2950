// What messages may use: itself and core.
#include "messages/codec.hpp"
#include "messages/conversions.hpp"
#include "core/tuning/reasoner.hpp"
