// The actors may use every layer below them.
#include "actors/runtime.hpp"
#include "adapters/diagnosis/evidence_sources.hpp"
#include "storage/message_pool.hpp"
#include "messages/codec.hpp"
#include "core/tuning/reasoner.hpp"
