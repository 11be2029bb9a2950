#include "core/launch/launch_template.hpp"

#include <array>
#include <utility>

#include "core/input_error.hpp"
#include "core/text.hpp"

namespace paratune {

namespace {

constexpr std::array<launch_field, 13> all_fields = {
  launch_field::framework_args,
  launch_field::megatron_args, launch_field::maxtext_args, launch_field::trial,
  launch_field::session,       launch_field::nodes,        launch_field::gpus_per_node,
  launch_field::workdir,       launch_field::relay,        launch_field::node_rank,
  launch_field::master_addr,   launch_field::master_port,  launch_field::job_id};

bool is_list(launch_field f) {
  return f == launch_field::framework_args || f == launch_field::megatron_args
         || f == launch_field::maxtext_args;
}

std::optional<launch_field> field_named(std::string_view name) {
  for (auto f : all_fields)
    if (name == to_string(f))
      return f;
  return std::nullopt;
}

std::string known_names() {
  std::vector<std::string> names;
  for (auto f : all_fields)
    names.push_back("{" + std::string(to_string(f)) + "}");
  return join(names, ", ");
}

const std::vector<std::string>& list_of(launch_field f, const launch_values& v) {
  if (f != launch_field::framework_args && f != v.framework)
    throw input_error(std::string("the launch template names {") + to_string(f) + "}, but its "
                      "trials run " + v.framework_title + ": use "
                      + (v.framework == launch_field::framework_args
                           ? std::string("{framework_args}")
                           : "{" + std::string(to_string(v.framework)) + "} or {framework_args}"));
  return v.framework_args;
}

std::string scalar_of(launch_field f, const launch_values& v) {
  switch (f) {
    case launch_field::trial: return std::to_string(v.trial);
    case launch_field::session: return v.session;
    case launch_field::nodes: return std::to_string(v.nodes);
    case launch_field::gpus_per_node: return std::to_string(v.gpus_per_node);
    case launch_field::workdir: return v.workdir;
    case launch_field::relay: return v.relay;
    case launch_field::node_rank:
    case launch_field::master_addr:
    case launch_field::master_port:
    case launch_field::job_id: return "{" + std::string(to_string(f)) + "}";
    default: return "";
  }
}

void check_no_nul(const std::string& value, launch_field f) {
  if (value.find('\0') != std::string::npos)
    throw input_error(std::string("launch value {") + to_string(f)
                      + "} holds a NUL byte, which no argv can carry");
}

} // namespace

const char* to_string(launch_field f) {
  switch (f) {
    case launch_field::framework_args: return "framework_args";
    case launch_field::megatron_args: return "megatron_args";
    case launch_field::maxtext_args: return "maxtext_args";
    case launch_field::trial: return "trial";
    case launch_field::session: return "session";
    case launch_field::nodes: return "nodes";
    case launch_field::gpus_per_node: return "gpus_per_node";
    case launch_field::workdir: return "workdir";
    case launch_field::relay: return "relay";
    case launch_field::node_rank: return "node_rank";
    case launch_field::master_addr: return "master_addr";
    case launch_field::master_port: return "master_port";
    case launch_field::job_id: return "job_id";
  }
  return "?";
}

bool is_runtime_field(launch_field f) {
  return f == launch_field::node_rank || f == launch_field::master_addr
         || f == launch_field::master_port || f == launch_field::job_id;
}

launch_template launch_template::parse(std::vector<std::string> tokens) {
  if (tokens.empty())
    throw input_error("launch: the template is empty (it needs at least the program)");
  launch_template t;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const auto& tok = tokens[i];
    const auto where = "launch token " + std::to_string(i + 1) + " '" + tok + "'";
    std::vector<piece> pieces;
    std::string literal;
    for (size_t at = 0; at < tok.size(); ++at) {
      const char c = tok[at];
      if ((c == '{' || c == '}') && at + 1 < tok.size() && tok[at + 1] == c) {
        literal += c; // "{{" or "}}"
        ++at;
      } else if (c == '}') {
        throw input_error(where + ": a '}' without its '{' (write '}}' for a literal one)");
      } else if (c == '{') {
        const auto close = tok.find('}', at);
        if (close == std::string::npos)
          throw input_error(where + ": a '{' without its '}' (write '{{' for a literal one)");
        const auto name = tok.substr(at + 1, close - at - 1);
        const auto f = field_named(name);
        if (!f)
          throw input_error(where + ": unknown placeholder {" + name + "} (known: "
                            + known_names() + ")");
        if (!literal.empty())
          pieces.push_back({std::exchange(literal, {}), std::nullopt});
        pieces.push_back({"", f});
        at = close;
      } else {
        literal += c;
      }
    }
    if (!literal.empty() || pieces.empty())
      pieces.push_back({literal, std::nullopt});
    for (const auto& p : pieces)
      if (p.field && is_list(*p.field) && pieces.size() > 1)
        throw input_error(where + ": {" + to_string(*p.field)
                          + "} stands for several arguments and must be a token of its own");
    t.pieces_.push_back(std::move(pieces));
  }
  if (t.pieces_.front().size() == 1 && t.pieces_.front().front().field
      && is_list(*t.pieces_.front().front().field))
    throw input_error("launch token 1: the program cannot be a list of arguments");
  t.tokens_ = std::move(tokens);
  return t;
}

std::vector<std::string> launch_template::render(const launch_values& v) const {
  std::vector<std::string> argv;
  for (const auto& pieces : pieces_) {
    if (pieces.size() == 1 && pieces.front().field && is_list(*pieces.front().field)) {
      for (const auto& arg : list_of(*pieces.front().field, v)) {
        check_no_nul(arg, *pieces.front().field);
        argv.push_back(arg);
      }
      continue;
    }
    std::string token;
    for (const auto& p : pieces) {
      if (!p.field) {
        token += p.text;
        continue;
      }
      const auto value = scalar_of(*p.field, v);
      check_no_nul(value, *p.field);
      token += value;
    }
    argv.push_back(std::move(token));
  }
  return argv;
}

bool launch_template::uses(launch_field f) const {
  for (const auto& pieces : pieces_)
    for (const auto& p : pieces)
      if (p.field == f)
        return true;
  return false;
}

std::optional<launch_field> launch_template::runtime_field() const {
  for (const auto& pieces : pieces_)
    for (const auto& p : pieces)
      if (p.field && is_runtime_field(*p.field))
        return p.field;
  return std::nullopt;
}

} // namespace paratune
