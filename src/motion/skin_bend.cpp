// weighted_bend_limits: the bend each joint's skin takes before an edge tears (skin_bend.h).
#include "retail/motion/skin_bend.h"

#include "retail/base/error.h"
#include "retail/base/parallel.h"
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
  if (!(min_ratio > 0 && min_ratio < 1) || axes < 1 || first_joint < 0 || threads < 0)
    throw Error(ExitCode::Usage, "skin bend parameters out of range");
}

namespace {

constexpr double kTwoPi = 2 * M_PI;

/// One edge under one joint: its two ends' positions relative to the joint at bind and their
/// shares c of the turning links (the weight on links i..).
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

/// The smallest turns, radians in (0, pi], about unit axis n, positive (first) and negative
/// (second), at which the edge's squared length leaves [lo, hi]; INFINITY when it does not.
/// |e'|^2 = alpha + beta cos t + gamma sin t (Rodrigues' formula with u = e - q, q = c_a p_a -
/// c_b p_b).
std::pair<double, double> first_tear(const EdgeUnderJoint& e, const Eigen::Vector3d& n, double lo,
                                     double hi) {
  const Eigen::Vector3d q = e.ca * e.pa - e.cb * e.pb;
  const Eigen::Vector3d u = (e.pa - e.pb) - q;
  const double un = u.dot(n), qn = q.dot(n);
  const double alpha = u.squaredNorm() + q.squaredNorm() + 2 * un * qn;
  const double beta = 2 * (u.dot(q) - un * qn);
  const double gamma = 2 * u.dot(n.cross(q));
  const double rho = std::hypot(beta, gamma);
  std::pair<double, double> out{INFINITY, INFINITY};
  if (!(rho > 0)) return out;
  const double phi = std::atan2(gamma, beta);
  for (double t : {lo, hi}) {
    const double x = (t - alpha) / rho;
    if (x < -1 || x > 1) continue;
    const double delta = std::acos(x);
    for (double root : {phi + delta, phi - delta}) {
      double r = std::fmod(root, kTwoPi);
      if (r < 0) r += kTwoPi;
      if (!(r > 0)) continue;
      out.first = std::min(out.first, r);            // turning the positive way
      out.second = std::min(out.second, kTwoPi - r); // turning the negative way
    }
  }
  if (out.first > M_PI) out.first = INFINITY;
  if (out.second > M_PI) out.second = INFINITY;
  return out;
}

/// c_i(v) for every listed vertex and joint: #S by K, column i the weight on links i..K-1.
Eigen::MatrixXd turning_share(const Eigen::MatrixXd& w) {
  Eigen::MatrixXd c = w;
  for (Eigen::Index i = c.cols() - 2; i >= 0; --i) c.col(i) += c.col(i + 1);
  return c;
}

/// Joint i's table (skin_bend.h): every edge of `on` whose ends' shares differ or blend, solved
/// about each axis unless it cannot tear within the largest limit left.
void read_joint(const std::vector<Eigen::Vector3d>& bind,
                const std::vector<std::pair<int, int>>& edges,
                const std::vector<std::array<int, 2>>& on, const std::vector<std::size_t>& which,
                const Eigen::MatrixXd& share, Eigen::Index i, const Eigen::Vector3d& J,
                const Eigen::Vector3d& d, const SkinBendParams& params, JointBend& out) {
  const double m = params.min_ratio;
  const std::size_t N = 2 * std::size_t(params.axes);
  out.axis0 = d.unitOrthogonal();
  const Eigen::Vector3d a2 = d.cross(out.axis0);
  out.by_axis.assign(N, out.least);
  double most = std::min(out.least, M_PI);
  for (std::size_t k = 0; k < on.size(); ++k) {
    const auto [ra, rb] = on[k];
    const auto& [a, b] = edges[which[k]];
    const double ca = ra < 0 ? 0.0 : share(ra, i), cb = rb < 0 ? 0.0 : share(rb, i);
    if (std::abs(ca - cb) < 1e-9 && (ca < 1e-9 || ca > 1 - 1e-9))
      continue; // rigid under this joint
    const EdgeUnderJoint e{bind[std::size_t(a)] - J, bind[std::size_t(b)] - J, ca, cb};
    const double l = (e.pa - e.pb).norm();
    if (!(l > 0) || cannot_tear(e, l, most, m)) continue;
    for (std::size_t x = 0; x < N / 2; ++x) {
      const double angle = kTwoPi * double(x) / double(N);
      const Eigen::Vector3d n = std::cos(angle) * out.axis0 + std::sin(angle) * a2;
      const auto [pos, neg] = first_tear(e, n, m * m * l * l, l * l / (m * m));
      out.by_axis[x] = std::min(out.by_axis[x], pos);
      out.by_axis[x + N / 2] = std::min(out.by_axis[x + N / 2], neg);
    }
    most = std::min(M_PI, *std::max_element(out.by_axis.begin(), out.by_axis.end()));
  }
  out.least = *std::min_element(out.by_axis.begin(), out.by_axis.end());
}

} // namespace

std::vector<JointBend> weighted_bend_limits(const std::vector<Eigen::Vector3d>& bind,
                                            const std::vector<std::pair<int, int>>& edges,
                                            const ChainSkin& skin,
                                            const std::vector<Eigen::Vector3d>& joints,
                                            const std::vector<double>& upper,
                                            const SkinBendParams& params) {
  params.validate();
  const Eigen::Index K = skin.weight.cols();
  std::vector<JointBend> limit(std::size_t(std::max<Eigen::Index>(K, 0)));
  for (std::size_t i = 0; i < limit.size() && i < upper.size(); ++i) limit[i].least = upper[i];
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
  // Each joint reads its own table into its own entry: the same on any number of workers.
  const std::size_t first = std::size_t(std::max(0, params.first_joint));
  parallel_for(std::size_t(K) - std::min(first, std::size_t(K)), params.threads,
               [&](std::size_t item) {
                 const Eigen::Index i = Eigen::Index(first + item);
                 const Eigen::Vector3d& J = joints[std::size_t(i)];
                 const Eigen::Vector3d d = joints[std::size_t(i) + 1] - J;
                 if (!(d.norm() > 0)) return;
                 read_joint(bind, edges, on, which, share, i, J, d.normalized(), params,
                            limit[std::size_t(i)]);
               });
  return limit;
}

void weigh_tail_bend(const SkinSampler& skin, const std::vector<std::pair<int, int>>& edges,
                     const Character& c, const ChainResult& chain, double run_ratio,
                     ChainSpec& spec, int threads) {
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
  SkinBendParams params; // every joint, the first too (its skin is the root band's)
  params.min_ratio = ratio;
  params.threads = threads;
  spec.weighted_limit = weighted_bend_limits(
      skin.bind(), edges, chain_skin(skin, spec.bones, vertices), joints, upper, params);
}

} // namespace retail
