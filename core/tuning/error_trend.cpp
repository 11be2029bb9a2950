#include "core/tuning/error_trend.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace paratune {

namespace {

constexpr int n = error_trend::features;

/// The inverse of a symmetric positive definite matrix (Gauss-Jordan with
/// partial pivoting; six unknowns).
auto invert(std::array<error_trend::point, n> a) {
  std::array<error_trend::point, n> inv{};
  for (int i = 0; i < n; ++i)
    inv[i][i] = 1;
  for (int col = 0; col < n; ++col) {
    int pivot = col;
    for (int r = col + 1; r < n; ++r)
      if (std::abs(a[r][col]) > std::abs(a[pivot][col]))
        pivot = r;
    std::swap(a[col], a[pivot]);
    std::swap(inv[col], inv[pivot]);
    const double d = a[col][col];
    for (int k = 0; k < n; ++k) {
      a[col][k] /= d;
      inv[col][k] /= d;
    }
    for (int r = 0; r < n; ++r) {
      if (r == col)
        continue;
      const double f = a[r][col];
      for (int k = 0; k < n; ++k) {
        a[r][k] -= f * a[col][k];
        inv[r][k] -= f * inv[col][k];
      }
    }
  }
  return inv;
}

} // namespace

error_trend::point error_trend::features_of(const training_config& c) {
  return {std::log2(double(c.tp)), std::log2(double(c.pp)), std::log2(double(c.cp)),
          std::log2(double(c.ep)), std::log2(double(c.vpp)), std::log2(double(c.mbs))};
}

void error_trend::add(const training_config& c, double log_ratio) {
  xs_.push_back(features_of(c));
  ys_.push_back(log_ratio);
}

void error_trend::fit(double noise_sigma, double slope_sigma) {
  slope_ = {};
  slope_cov_ = {};
  mean_x_ = {};
  mean_y_ = 0;
  mean_var_ = 0;
  if (ys_.empty())
    return;
  const double count = double(ys_.size());
  for (size_t i = 0; i < ys_.size(); ++i) {
    mean_y_ += ys_[i] / count;
    for (int f = 0; f < n; ++f)
      mean_x_[f] += xs_[i][f] / count;
  }
  mean_var_ = noise_sigma * noise_sigma / count;
  // Posterior of the slopes on centred features: precision
  // X'X / noise^2 + I / slope^2, mean cov X'y / noise^2.
  const double noise_precision = 1 / (noise_sigma * noise_sigma);
  matrix precision{};
  point xy{};
  for (int f = 0; f < n; ++f)
    precision[f][f] = 1 / (slope_sigma * slope_sigma);
  for (size_t i = 0; i < ys_.size(); ++i)
    for (int f = 0; f < n; ++f) {
      const double xf = xs_[i][f] - mean_x_[f];
      xy[f] += noise_precision * xf * (ys_[i] - mean_y_);
      for (int g = 0; g < n; ++g)
        precision[f][g] += noise_precision * xf * (xs_[i][g] - mean_x_[g]);
    }
  slope_cov_ = invert(precision);
  for (int f = 0; f < n; ++f)
    for (int g = 0; g < n; ++g)
      slope_[f] += slope_cov_[f][g] * xy[g];
}

double error_trend::at(const training_config& c) const {
  const auto x = features_of(c);
  double y = mean_y_;
  for (int f = 0; f < n; ++f)
    y += slope_[f] * (x[f] - mean_x_[f]);
  return y;
}

double error_trend::sd_at(const training_config& c) const {
  if (ys_.empty())
    return 0;
  const auto x = features_of(c);
  double var = mean_var_;
  for (int f = 0; f < n; ++f)
    for (int g = 0; g < n; ++g)
      var += (x[f] - mean_x_[f]) * slope_cov_[f][g] * (x[g] - mean_x_[g]);
  return std::sqrt(std::max(0.0, var));
}

double error_trend::mean() const {
  double sum = 0;
  for (double y : ys_)
    sum += y;
  return ys_.empty() ? 0 : sum / double(ys_.size());
}

double error_trend::spread() const {
  if (ys_.size() < 2)
    return 0;
  const double m = mean();
  double ss = 0;
  for (double y : ys_)
    ss += (y - m) * (y - m);
  return std::sqrt(ss / double(ys_.size() - 1));
}

} // namespace paratune
