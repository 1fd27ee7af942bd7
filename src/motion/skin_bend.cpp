// weighted_bend_limits: the bend each joint's skin takes before an edge tears (skin_bend.h).
#include "retail/motion/skin_bend.h"

#include "retail/base/error.h"
#include "retail/motion/spring.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cmath>

namespace retail {

ChainSkin chain_skin(const SkinSampler& skin, const std::vector<int>& links,
                     std::vector<std::size_t> vertices) {
  std::sort(vertices.begin(), vertices.end());
  vertices.erase(std::unique(vertices.begin(), vertices.end()), vertices.end());
  ChainSkin out;
  std::vector<std::vector<double>> rows;
  for (std::size_t v : vertices) {
    if (v >= skin.size()) continue;
    std::vector<double> w = skin.weights_on(v, links);
    if (std::all_of(w.begin(), w.end(), [](double x) { return !(x > 0); })) continue;
    out.vertices.push_back(int(v));
    rows.push_back(std::move(w));
  }
  out.weight.resize(Eigen::Index(rows.size()), Eigen::Index(links.size()));
  for (std::size_t s = 0; s < rows.size(); ++s)
    for (std::size_t k = 0; k < links.size(); ++k)
      out.weight(Eigen::Index(s), Eigen::Index(k)) = rows[s][k];
  return out;
}

void SkinBendParams::validate() const {
  if (!(min_ratio > 0 && min_ratio < 1) || axes < 1 || first_joint < 0)
    throw Error(ExitCode::Usage, "skin bend parameters out of range");
}

namespace {

constexpr double kTwoPi = 2 * M_PI;

/// One edge under one joint, positions relative to the joint: a = p_a - p_b's ends with their
/// shares c of the turning links.
struct EdgeUnderJoint {
  Eigen::Vector3d pa, pb;
  double ca = 0, cb = 0;
};

/// True when no turn of at most `theta` radians (theta <= pi) about any axis can take the
/// edge's length out of [m, 1/m] of its bind length `l`: e' = ((1 - c)I + cR) e + dc (R - I) p
/// (c, p one end's share and position, dc the difference), whose first term keeps at least
/// the least singular value of (1 - c)I + cR and whose second moves at most 2 sin(theta/2)|p|.
bool cannot_tear(const EdgeUnderJoint& e, double l, double theta, double m) {
  const double dc = std::abs(e.ca - e.cb);
  const bool use_b = e.pb.squaredNorm() <= e.pa.squaredNorm();
  const double c = std::clamp(use_b ? e.ca : e.cb, 0.0, 1.0);
  const double p = use_b ? e.pb.norm() : e.pa.norm();
  const double sigma =
      std::sqrt(std::max(0.0, (1 - c) * (1 - c) + c * c + 2 * c * (1 - c) * std::cos(theta)));
  const double move = dc * 2 * std::sin(theta / 2) * p / l;
  return sigma - move >= m && 1 + move <= 1 / m;
}

/// Smallest turn, radians in (0, pi], about unit axis n (either sense) at which the edge's
/// squared length leaves [lo, hi]; INFINITY when it never does. |e'|^2 = alpha + beta cos t +
/// gamma sin t (Rodrigues' formula with u = e - q, q = c_a p_a - c_b p_b).
double first_tear(const EdgeUnderJoint& e, const Eigen::Vector3d& n, double lo, double hi) {
  const Eigen::Vector3d q = e.ca * e.pa - e.cb * e.pb;
  const Eigen::Vector3d u = (e.pa - e.pb) - q;
  const double un = u.dot(n), qn = q.dot(n);
  const double alpha = u.squaredNorm() + q.squaredNorm() + 2 * un * qn;
  const double beta = 2 * (u.dot(q) - un * qn);
  const double gamma = 2 * u.dot(n.cross(q));
  const double rho = std::hypot(beta, gamma);
  if (!(rho > 0)) return INFINITY;
  const double phi = std::atan2(gamma, beta);
  double best = INFINITY;
  for (double t : {lo, hi}) {
    const double x = (t - alpha) / rho;
    if (x < -1 || x > 1) continue;
    const double delta = std::acos(x);
    for (double root : {phi + delta, phi - delta}) {
      double r = std::fmod(root, kTwoPi);
      if (r < 0) r += kTwoPi;
      // r: the first crossing turning one way; 2 pi - r: turning the other way.
      if (r > 0) best = std::min(best, std::min(r, kTwoPi - r));
    }
  }
  return best <= M_PI ? best : INFINITY;
}

/// c_i(v) for every listed vertex and joint: #S by K, column i the weight on links i..K-1.
Eigen::MatrixXd turning_share(const Eigen::MatrixXd& w) {
  Eigen::MatrixXd c = w;
  for (Eigen::Index i = c.cols() - 2; i >= 0; --i) c.col(i) += c.col(i + 1);
  return c;
}

} // namespace

std::vector<double> weighted_bend_limits(const std::vector<Eigen::Vector3d>& bind,
                                         const std::vector<std::pair<int, int>>& edges,
                                         const ChainSkin& skin,
                                         const std::vector<Eigen::Vector3d>& joints,
                                         const std::vector<double>& upper,
                                         const SkinBendParams& params) {
  params.validate();
  const Eigen::Index K = skin.weight.cols();
  std::vector<double> limit(upper.begin(), upper.end());
  limit.resize(std::size_t(K), INFINITY);
  if (K < 1 || joints.size() < std::size_t(K) + 1) return limit;
  std::vector<int> row(bind.size(), -1);
  for (std::size_t s = 0; s < skin.vertices.size(); ++s)
    row[std::size_t(skin.vertices[s])] = int(s);
  const Eigen::MatrixXd share = turning_share(skin.weight);
  std::vector<std::array<int, 2>> on; // edges with an end on the skin: rows, -1 off it
  std::vector<std::size_t> which;
  for (std::size_t k = 0; k < edges.size(); ++k) {
    const int ra = row[std::size_t(edges[k].first)], rb = row[std::size_t(edges[k].second)];
    if (ra >= 0 || rb >= 0) on.push_back({ra, rb}), which.push_back(k);
  }
  const double m = params.min_ratio;
  for (Eigen::Index i = std::max(0, params.first_joint); i < K; ++i) {
    const Eigen::Vector3d& J = joints[std::size_t(i)];
    const Eigen::Vector3d d = joints[std::size_t(i) + 1] - J;
    if (!(d.norm() > 0)) continue;
    const Eigen::Vector3d a1 = d.unitOrthogonal(), a2 = d.normalized().cross(a1);
    double& lim = limit[std::size_t(i)];
    for (std::size_t k = 0; k < on.size(); ++k) {
      const auto [ra, rb] = on[k];
      const auto& [a, b] = edges[which[k]];
      const double ca = ra < 0 ? 0.0 : share(ra, i), cb = rb < 0 ? 0.0 : share(rb, i);
      if (std::abs(ca - cb) < 1e-9 && (ca < 1e-9 || ca > 1 - 1e-9))
        continue; // rigid under this joint
      const EdgeUnderJoint e{bind[std::size_t(a)] - J, bind[std::size_t(b)] - J, ca, cb};
      const double l = (e.pa - e.pb).norm();
      if (!(l > 0) || cannot_tear(e, l, std::min(lim, M_PI), m)) continue;
      for (int x = 0; x < params.axes; ++x) {
        const double angle = M_PI * x / params.axes;
        const Eigen::Vector3d n = std::cos(angle) * a1 + std::sin(angle) * a2;
        lim = std::min(lim, first_tear(e, n, m * m * l * l, l * l / (m * m)));
      }
    }
  }
  return limit;
}

void weigh_tail_bend(const SkinSampler& skin, const std::vector<std::pair<int, int>>& edges,
                     const Character& c, const ChainResult& chain, double run_ratio,
                     ChainSpec& spec) {
  const double ratio =
      std::isnan(spec.min_skin_ratio) ? run_ratio : std::max(spec.min_skin_ratio, run_ratio);
  if (!(ratio > 0 && ratio < 1) || spec.bones.empty() || spec.end < 0) return;
  std::vector<Eigen::Vector3d> joints;
  for (int node : chain.nodes) {
    const int j = c.joint_index(node);
    if (j < 0) return;
    joints.push_back(c.bind_position(j));
  }
  if (joints.size() != spec.bones.size() + 1) return;
  std::vector<std::size_t> vertices = chain.original_vertices;
  vertices.insert(vertices.end(), chain.band_originals.begin(), chain.band_originals.end());
  std::vector<double> upper(spec.bones.size(), INFINITY);
  for (std::size_t i = 0; i < upper.size() && i < spec.skin_radius.size(); ++i)
    upper[i] = skin_bend_limit(spec.skin_radius[i],
                               (joints[i == 0 ? 1 : i] - joints[i == 0 ? 0 : i - 1]).norm(),
                               (joints[i + 1] - joints[i]).norm(), ratio);
  SkinBendParams params;
  params.min_ratio = ratio;
  params.first_joint = 1; // joint 0 bends the root band, which the harm check judges (spring.md)
  spec.weighted_limit = weighted_bend_limits(
      skin.bind(), edges, chain_skin(skin, spec.bones, vertices), joints, upper, params);
}

} // namespace retail
