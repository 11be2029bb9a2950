#pragma once

#include "core/llm/guarded_ask.hpp"
#include "core/reasoner_settings.hpp"

namespace paratune {

/// The chat_fn of one agent's settings: a blocking chat_client call, so an
/// agent that asks runs on a thread of its own (a detached actor, or the
/// CLI). Errors come back in words, never with the key.
chat_fn model_chat(const reasoner_settings& settings);

} // namespace paratune
