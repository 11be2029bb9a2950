#pragma once

#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace paratune {

/// The `key: value` pieces of one log line, in order, in one allocation of
/// just the bytes they need. Why not a vector of string pairs: most keys
/// ("elapsed time per iteration (ms)") are longer than std::string's inline
/// buffer, so an iteration line cost a dozen allocations and twice its own
/// size in memory, and fresh pages cost more than the parsing itself.
///
/// Layout of `bytes_`: one table entry per piece (where its key and its
/// value end, 2 bytes each), then the tag, then key0 value0 key1 value1 ...
/// without the line's padding. Offsets are 16-bit: the log parser cuts lines
/// at 64 KiB, and pieces that would not fit are dropped (never split).
class line_values {
public:
  using value_type = std::pair<std::string_view, std::string_view>;

  /// Replaces the content with copies of `tag` and `pieces`.
  void assign(std::string_view tag, std::span<const value_type> pieces) {
    tag = tag.substr(0, max_text);
    std::size_t count = 0, text = tag.size();
    for (const auto& [k, v] : pieces) {
      if (text + k.size() + v.size() > max_text) break;
      text += k.size() + v.size();
      ++count;
    }
    count_ = static_cast<uint16_t>(count);
    tag_size_ = static_cast<uint16_t>(tag.size());
    // One resize, then plain copies: appending piece by piece checked the
    // capacity twice per piece and showed in profiles.
    bytes_.resize(count * sizeof(entry) + text);
    char* table = bytes_.data();
    char* out = table + count * sizeof(entry);
    copy_to(out, tag);
    uint16_t end = tag_size_;
    for (std::size_t i = 0; i < count; ++i) {
      const auto& [k, v] = pieces[i];
      copy_to(out + end, k);
      copy_to(out + end + k.size(), v);
      const entry e{static_cast<uint16_t>(end + k.size()),
                    static_cast<uint16_t>(end + k.size() + v.size())};
      std::memcpy(table + i * sizeof e, &e, sizeof e);
      end = e.value_end;
    }
  }

  /// Text kept outside the list (an iteration line's timestamp), or empty.
  std::string_view tag() const { return text().substr(0, tag_size_); }

  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  value_type operator[](std::size_t i) const {
    const entry e = entry_at(i);
    const uint16_t start = i == 0 ? tag_size_ : entry_at(i - 1).value_end;
    const std::string_view t = text();
    return {t.substr(start, e.key_end - start), t.substr(e.key_end, e.value_end - e.key_end)};
  }
  value_type at(std::size_t i) const {
    if (i >= size()) throw std::out_of_range("line_values::at");
    return (*this)[i];
  }

  class const_iterator {
  public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = line_values::value_type;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = value_type;
    const_iterator() = default;
    const_iterator(const line_values* owner, std::size_t i) : owner_(owner), i_(i) {}
    value_type operator*() const { return (*owner_)[i_]; }
    const_iterator& operator++() { ++i_; return *this; }
    const_iterator operator++(int) { auto old = *this; ++i_; return old; }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }

  private:
    const line_values* owner_ = nullptr;
    std::size_t i_ = 0;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

private:
  struct entry {
    uint16_t key_end, value_end;  ///< offsets into text()
  };
  static constexpr std::size_t max_text = UINT16_MAX;

  // memcpy needs a valid pointer even for no bytes; an empty view may be null.
  static void copy_to(char* out, std::string_view part) {
    if (!part.empty()) std::memcpy(out, part.data(), part.size());
  }
  entry entry_at(std::size_t i) const {
    entry e;
    std::memcpy(&e, bytes_.data() + i * sizeof e, sizeof e);
    return e;
  }
  std::string_view text() const {
    return std::string_view(bytes_).substr(std::size_t{count_} * sizeof(entry));
  }

  std::string bytes_;
  uint16_t count_ = 0;
  uint16_t tag_size_ = 0;
};

} // namespace paratune
