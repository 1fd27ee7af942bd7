// retail — the spring chain that moves a tail (SPEC §7, and what retail adds: docs/spring.md).
// A runtime component: no file I/O, no glTF; it steps world-space particles given its anchor's
// world transform (the joint the chain hangs from: the hips for a tail), at a fixed substep,
// and writes only its own particles (never the anchor, root or feet). Links i = 0..N-1 run
// from head h_i to tip p_i (h_0 rides the anchor; h_{i+1} = p_i). The forward plane and the
// floor are constraints a rig opts into (SpringRig): tails use both, hair and VRM springs
// neither.
#pragma once

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace retail {

struct SpringParams {
  double root_frequency_hz = 0.9;
  double tip_frequency_hz = 0.45;
  double damping_ratio = 0.65;
  double gravity_mps2 = 1.0; ///< metres per s^2 (scaled by the model scale)
  double carry_deg = 50;     ///< total lift of the whole chain, shared by its joints
  double rest_curve = 0;     ///< beta: 0 centred arc, 1 the modelled curl
  /// The rest arc is carried only as far as it needs to clear SpringRig::clear_of (the legs,
  /// and the floor): the least whole degree up to carry_deg whose arc's joints clear them (when
  /// none does, the least that clears them most: lifting further helps nothing), so a chain
  /// modelled clear of them keeps its modelled direction.
  /// False, or no obstacles: SPEC §7's arc, carried carry_deg.
  bool carry_as_needed = true;
  double coupling_rate = 12; ///< k, 1/s: alpha = 1 - exp(-k dt)
  double bend_limit_deg = 30;
  /// The skin's own limit: no joint bends further from the bind pose than linear-blend skinning
  /// of its skin takes while every edge keeps at least this ratio of its length (0: off).
  double min_skin_ratio = 0.67;
  /// The rest arc bends no joint further from its bind direction than this share of its skin
  /// limit (0: the arc as SPEC §7 builds it, held at the limit only when a clip starts).
  double rest_skin_share = 1.0;
  bool floor = true;
  double floor_clearance_m = 0.025; ///< rho: tail thickness below its centreline (scaled)
  double contact_damping = 8;       ///< gamma, 1/s
  double substep_s = 1.0 / 120;
  /// Turned out of a limb collider (SpringChain::step's colliders), a joint may bend this share
  /// of its skin limit (min_skin_ratio) from its bind direction: that limit assumes the weights
  /// blend over a quarter link (SPEC §6) and is well inside what tears (docs/spring.md).
  double collider_skin_share = 2.0;
  void validate() const; ///< Failure: Error(Usage)
};

/// A capsule the rest arc keeps the chain's joints out of (SpringParams::carry_as_needed): its
/// axis a -> b and radius, at bind, in the anchor's axes (world scale) relative to the chain's
/// root.
struct RestObstacle {
  Eigen::Vector3d a = Eigen::Vector3d::Zero(), b = Eigen::Vector3d::Zero();
  double radius = 0;
};

/// One joint's limit by the direction of its bend. by_axis[x] bounds a turn of the link about
/// n_x = cos(2 pi x / N) axis0 + sin(2 pi x / N) (d x axis0), positive by the right-hand rule
/// (d: the link's unit direction, N = by_axis.size()); axis0 and d in one frame (world at bind
/// from skin_bend.h's weighted_bend_limits; SpringRig's: the anchor's frame at bind).
struct JointBend {
  Eigen::Vector3d axis0 = Eigen::Vector3d::Zero(); ///< unit, normal to d
  std::vector<double> by_axis;                     ///< radians; empty: none read
  double least = INFINITY;                         ///< the least limit in any direction
  /// The limit for a bend of link direction `d` about unit `n` (normal to d): the lesser of the
  /// two samples either side of n; `least` when none were read or n is not normal to d.
  double toward(const Eigen::Vector3d& d, const Eigen::Vector3d& n) const;
};

/// The chain's fixed description, in its anchor's local frame at bind ("hips-local" below, the
/// anchor of a tail).
struct SpringRig {
  Eigen::Vector3d root_offset;           ///< the first bone's head in hips-local coordinates
  std::vector<double> length;            ///< l_i, world units at bind (hips scale applied)
  std::vector<Eigen::Vector3d> authored; ///< a_i: unit direction of link i in hips-local axes
  Eigen::Vector3d left_local = Eigen::Vector3d::UnitX(); ///< right thigh -> left thigh, hips-local
  Eigen::Vector3d up_local = Eigen::Vector3d::UnitY();   ///< world +Y at bind, hips-local
  bool forward_plane = true; ///< keep the chain behind the anchor's forward plane (a tail)
  bool floor = true;         ///< floor contact (a tail; also needs SpringParams::floor)
  double scale = 1;          ///< model scale (H / 1.8): gravity and clearance
  double floor_y = 0;        ///< g_0, world
  /// Skin radius at each link's head joint, world units (0 or missing: no skin limit there).
  std::vector<double> skin_radius;
  /// Per link: the bend its skin's weights allow by direction (JointBend, in hips-local axes;
  /// missing: none). The skin limit is the lesser of it and the radius's, in each direction;
  /// ignored when the skin limit is off (min_skin_ratio 0).
  std::vector<JointBend> weighted_limit;
  /// The skin limit's ratio for this chain (SpringParams::min_skin_ratio's role), used when
  /// stricter than the params' (never looser); NaN: the params'. Must lie in [0, 1) when set.
  double min_skin_ratio = NAN;
  std::vector<RestObstacle> clear_of; ///< what the rest arc clears (a tail: the legs)
  /// World height of the chain's root at bind: with floor contact, the rest arc keeps its
  /// joints above the floor too (SpringParams::carry_as_needed). NaN: unknown.
  double root_y = NAN;
  /// How many capsules the links stay out of while the chain moves (a tail: the thighs and
  /// shins), placed each step by SpringChain::step's `colliders`. Per link i and capsule c,
  /// collider_radius[i * colliders + c] is the least distance link i's segment keeps from
  /// capsule c's axis: its radius, or less where the link at bind already lies inside it (that
  /// depth is the bind's own, allowed).
  std::size_t colliders = 0;
  std::vector<double> collider_radius;
  /// As collider_radius with each link's whole skin radius (the larger of its two joints')
  /// kept out: the skin taken as a tube round the link. Only measured (collider_depths'
  /// second), never enforced; may be empty.
  std::vector<double> skin_collider_radius;
  /// The anchor's bind frame is a reflection (an armature mirrored by a node above it): the
  /// hips-local axes above are its frame with local X reversed, a rotation; AnchorPose::rotation
  /// must then be the anchor's rotation with local X reversed too, and a local rotation read
  /// back is in those axes (mirrored_local turns it into the joint's).
  bool mirrored = false;
  std::size_t links() const { return length.size(); }
};

/// A rotation in a mirrored anchor's axes (SpringRig::mirrored: local X reversed) as the same
/// rotation in the joint's own: (w, x, y, z) -> (w, x, -y, -z). Its own inverse.
inline Eigen::Quaterniond mirrored_local(const Eigen::Quaterniond& q) {
  return Eigen::Quaterniond(q.w(), q.x(), -q.y(), -q.z());
}

/// The anchor's pose for one step: rotation (unit) and the world transform of its local points.
struct AnchorPose {
  Eigen::Quaterniond rotation = Eigen::Quaterniond::Identity();
  Eigen::Matrix4d world = Eigen::Matrix4d::Identity();
};

class SpringChain {
public:
  /// Pre: rig.links() >= 1, unit authored directions, positive lengths.
  SpringChain(const SpringRig& rig, const SpringParams& params);

  /// Places every particle on its rest target with zero velocity (the chain at rest), each
  /// link within its skin limit (skin_limit) of its authored direction.
  void reset(const AnchorPose& hips);

  /// Advances by one substep of `dt` seconds with the hips at `hips` (the end of the step).
  /// `colliders`: rig.colliders capsule axes (a -> b, world, at the step's end; their radius
  /// is ignored: SpringRig::collider_radius holds the link's), or null (none this step). Each
  /// link is turned about its head out of them (the floor and the forward plane still win).
  void step(const AnchorPose& hips, double dt,
            const std::vector<RestObstacle>* colliders = nullptr);

  /// Deepest any link's segment lies inside `colliders` (as step's) beyond its allowance
  /// (SpringRig::collider_radius), world units; 0 when none does.
  double collider_depth(const std::vector<RestObstacle>& colliders) const {
    return collider_depths(colliders).first;
  }
  /// collider_depth, and the same beyond SpringRig::skin_collider_radius (0 when that is
  /// empty), from one pass over the links' gaps to the capsules.
  std::pair<double, double> collider_depths(const std::vector<RestObstacle>& colliders) const;
  /// Whether the last step turned some link out of a collider.
  bool collider_contact() const { return collider_contact_; }

  /// Local rotation of bone i relative to its parent (the hips for i = 0), in the bones' shared
  /// bind frame (= the hips' bind frame): the value written into the bone's glTF rotation.
  Eigen::Quaterniond local_rotation(std::size_t i) const { return local_[i]; }

  const std::vector<Eigen::Vector3d>& tips() const { return p_; }
  const std::vector<Eigen::Vector3d>& velocities() const { return v_; }
  Eigen::Vector3d head(std::size_t i) const { return i == 0 ? root_ : p_[i - 1]; }
  /// Rest direction of link i in its parent's rest frame (r_i), and its hips-space arc u_i.
  const Eigen::Vector3d& rest_direction(std::size_t i) const { return r_[i]; }
  const Eigen::Vector3d& arc_direction(std::size_t i) const { return u_[i]; }
  /// The carry the rest arc took (degrees; SpringParams::carry_as_needed), and whether that
  /// arc clears SpringRig::clear_of (false also when nothing was to be cleared).
  double carry_deg() const { return carry_deg_; }
  bool clears() const { return clears_; }
  /// The skin's bend limit at link i's head, radians from the bind direction (infinite: none):
  /// (1 - min_skin_ratio) (l_{i-1} + l_i) / (4 r_i), with l_{-1} = l_0 (see skin_bend_limit),
  /// or less in every direction where SpringRig::weighted_limit says so (its least).
  double skin_limit(std::size_t i) const { return skin_limit_[i]; }
  /// Link i's limit for a bend from its bind direction (`parent` * its authored direction)
  /// towards unit `dir` (the frame `parent` maps hips-local axes into): the weights' limit
  /// in that direction where they were read, else skin_limit(i).
  double skin_limit_toward(std::size_t i, const Eigen::Quaterniond& parent,
                           const Eigen::Vector3d& dir) const;
  /// Bend of link i in the common hips frame after the last step (q_i).
  const Eigen::Quaterniond& bend(std::size_t i) const { return q_[i]; }
  bool in_contact(std::size_t i) const { return contact_[i]; }
  double floor_height() const { return floor_; }
  /// Deepest any particle has been below the floor since reset (0 when the floor always held):
  /// where holding it would bend a joint past its skin limit, the skin wins.
  double floor_penetration() const { return penetration_; }
  void clear_floor_penetration() { penetration_ = 0; }

  /// The broken variant (rope correction fed back as velocity, docs/spring.md), kept only so a
  /// test can prove the real solver does not behave like it.
  bool feed_correction_as_velocity = false;

private:
  void build_rest_arc();
  /// The arc directions u_i (hips-local) for a carry of `carry` radians and curve `beta`.
  std::vector<Eigen::Vector3d> arc(double carry, double beta) const;
  /// Least distance of the arc's joints (link tips) outside rig_.clear_of (negative: inside).
  double clearance(const std::vector<Eigen::Vector3d>& u) const;
  /// After reset: where the rest arc bends a joint past its skin limit (a thick, short
  /// link; only with rest_skin_share 0, else the arc is held inside), the particles are placed
  /// as the step would hold them, each link turned back to its limit; otherwise the arc is
  /// left exactly as placed.
  void hold_rest_in_skin(const AnchorPose& hips);
  /// The forward plane's normal (SPEC §7 frames; see forward_axis in spring.cpp).
  Eigen::Vector3d forward_axis(const AnchorPose& hips) const;
  /// World frame of link i's parent from the current particles (read-back rotations), kept
  /// across one contact pass (spread_contact): frames [0, frames_valid_) match the particles,
  /// and moved_from(k) after an edit of particles k.. keeps frames 0..k (frame i depends only on
  /// the particles before i). The same products in the same order as computing them afresh.
  const Eigen::Quaterniond& parent_frame(const AnchorPose& hips, std::size_t i);
  void moved_from(std::size_t k) { frames_valid_ = std::min(frames_valid_, k + 1); }
  /// Rotates particles first..N-1 about head(first) by `r` (bone lengths kept).
  void rotate_from(std::size_t first, const Eigen::Quaterniond& r);
  /// Largest distance ahead of the forward plane of particles first..N-1 (negative: behind).
  double ahead_from(std::size_t first) const;
  /// rotate_from(first, the largest part of r that keeps particles first.. behind the forward
  /// plane, or no further ahead than they were).
  void turn_behind_plane(std::size_t first, const Eigen::Quaterniond& r);
  /// Floor contact that would bend a joint past its skin limit is taken up by the joints above.
  void spread_contact(const AnchorPose& hips);
  /// Raises particle `target` towards the floor by turning links k.. about head(k), no further
  /// than joint k's skin limit allows.
  void lift(std::size_t k, std::size_t target, const Eigen::Quaterniond& parent_frame);
  /// The turn of links i.. about head(i) that puts link i on the SPEC §7.7 floor circle.
  Eigen::Quaterniond floor_turn(std::size_t i, const Eigen::Quaterniond& parent_frame) const;
  /// SPEC §7.7: the unit direction from head `h` onto the floor circle of a link of length
  /// `len`, keeping the horizontal heading of `t` (else `fallback`'s), never ahead of the
  /// forward plane (the heading loses its forward part when it would be).
  Eigen::Vector3d floor_direction(const Eigen::Vector3d& h, Eigen::Vector3d t, double len,
                                  const Eigen::Vector3d& fallback) const;
  /// Turns link i (head `h`, tip `p`) about h out of the colliders of this step; removes the
  /// velocity into them. Returns the tip.
  Eigen::Vector3d collide_link(std::size_t i, const Eigen::Vector3d& h, Eigen::Vector3d p,
                               const std::vector<RestObstacle>& colliders);
  /// The deepest contact of link i with `colliders` beyond its allowance: the point on the link,
  /// the unit way out and the depth (`need`). False when none.
  bool deepest_contact(std::size_t i, const std::vector<RestObstacle>& colliders,
                       Eigen::Vector3d& at, Eigen::Vector3d& out, double& need) const;
  /// Turns links k.. about head(k) to move point `at` by `need` along `out`, no further than
  /// joint k's skin limit and never ahead of the forward plane; `frame`: link k's parent frame.
  void lift_out(std::size_t k, const Eigen::Vector3d& at, const Eigen::Vector3d& out, double need,
                const Eigen::Quaterniond& frame);
  /// After the step: a link still inside a collider (its own skin limit held it there) is
  /// lifted out by the joints above, each within its skin limit.
  void spread_colliders(const AnchorPose& hips, const std::vector<RestObstacle>& colliders);
  /// Step 8 for every link: local rotations and bends from the particles.
  void read_back(const AnchorPose& hips);
  /// step()'s start: the substep's constants (when dt changed), the root, the forward axis,
  /// whether the plane applies, and the snapshot of the bends the coupling reads.
  void begin_step(const AnchorPose& hips, double dt);
  /// step() for link i, steps 1-3: the damped spring towards the rest target from head `h`
  /// (parent frame `parent`, world), then the rope; updates v_[i]. Returns the unit direction
  /// from h to the predicted particle (the rest direction when they coincide); `rest_dir` gets
  /// the rest direction (world).
  Eigen::Vector3d spring_link(std::size_t i, const Eigen::Vector3d& h,
                              const Eigen::Quaterniond& parent, double dt,
                              Eigen::Vector3d& rest_dir);
  /// step() for link i, steps 4-5 and the skin limit: the bend towards `nrm` coupled to last
  /// step's neighbours, limited elastically and by the skin; updates v_[i]. Returns the link's
  /// unit direction (world).
  Eigen::Vector3d bend_link(std::size_t i, const Eigen::Quaterniond& parent,
                            const Eigen::Vector3d& nrm);
  /// Unit `dir` of link i pulled back within skin_limit_toward of its bind direction
  /// (`parent` * authored); the velocity `v` pushing further out is removed.
  Eigen::Vector3d within_skin(std::size_t i, const Eigen::Quaterniond& parent,
                              const Eigen::Vector3d& dir, Eigen::Vector3d& v) const;
  /// step() for link i, steps 6-7: particle `p` (head `h`) kept behind the forward plane and
  /// put on the floor circle when below the floor; updates v_[i] and contact_[i]. Returns it.
  Eigen::Vector3d constrain_link(std::size_t i, const Eigen::Vector3d& h, Eigen::Vector3d p,
                                 const Eigen::Vector3d& rest_dir);
  /// step() for link i, step 8: q_[i] and local_[i] from particle p_[i] (head `h`); `cum` (the
  /// product of the local rotations so far, hips space) takes local_[i].
  void read_back_link(std::size_t i, const Eigen::Quaterniond& parent, const Eigen::Vector3d& h,
                      Eigen::Quaterniond& cum);
  SpringRig rig_;
  SpringParams params_;
  std::vector<Eigen::Vector3d> u_;       ///< hips-space rest arc directions
  double carry_deg_ = 0;                 ///< the carry the arc took
  bool clears_ = false;                  ///< the arc clears rig_.clear_of
  std::vector<Eigen::Quaterniond> rest_; ///< G_i: cumulative rest rotation of bone i (hips space)
  std::vector<Eigen::Vector3d> r_;       ///< r_i = G_{i-1}^-1 u_i
  std::vector<Eigen::Matrix3d> parent_rest_; ///< G_{i-1} as a matrix (identity for i = 0)
  std::vector<Eigen::Vector3d> p_, v_;
  std::vector<Eigen::Quaterniond> q_, local_;
  std::vector<Eigen::Quaterniond> old_; ///< step(): the snapshot of q_ the coupling reads
  std::vector<bool> contact_;
  std::vector<double> skin_limit_;
  std::vector<double> skin_cos_; ///< cos(skin_limit_), or -2 where there is no limit
  std::vector<double> collider_limit_, collider_cos_; ///< collider_skin_share x skin_limit_
  std::vector<double> contact_cos_; ///< cos(skin_limit_ + 1e-9) (the contact pass), or -2
  Eigen::Vector3d root_ = Eigen::Vector3d::Zero();
  double floor_ = 0;
  bool floor_on_ = true; ///< rig_.floor && params_.floor
  double penetration_ = 0;
  bool collider_contact_ = false; ///< the last step turned a link out of a collider
  Eigen::Vector3d forward_ = Eigen::Vector3d::UnitZ(); ///< this step's forward axis
  bool plane_ = true; ///< this step enforces the forward plane (hips within 60 deg of upright)
  Eigen::Vector3d forward_local_ = Eigen::Vector3d::UnitZ(); ///< forward at bind, hips-local
  double cos_half_limit_ = 1;                                ///< cos(bend_limit / 2)
  double step_dt_ = NAN; ///< the substep length the two below were computed for
  double step_alpha_ = 0, step_contact_decay_ = 0; ///< 1 - e^(-k dt), e^(-gamma dt)
  // Contact-pass memory, reused from step to step (no allocation per step).
  std::vector<Eigen::Quaterniond> frames_, frame_cum_; ///< parent_frame(); cum: before link i
  std::size_t frames_valid_ = 0;
  std::vector<Eigen::Vector3d> saved_;      ///< particles before a trial edit
  std::vector<Eigen::Vector3d> lift_waves_; ///< lift(): per particle, its `ahead` wave
};

/// Shortest unit quaternion turning the direction of a onto that of b (any lengths; 180 deg:
/// about a normal to a; identity when either is zero).
Eigen::Quaterniond swing(const Eigen::Vector3d& a, const Eigen::Vector3d& b);

/// The bend (radians) at a joint whose skin has radius `radius` and whose weights blend over
/// a quarter of the link on each side (SPEC §6), beyond which linear-blend skinning squashes
/// the inner side of the bend below `min_ratio` of its length. Under a bend theta, an edge along
/// the tail at distance r from the joint's axis, where the weight moves by dw over length dx,
/// keeps 1 - theta r dw/dx of its length; dw/dx = 4 / (l_prev + l_next). Infinite when radius
/// or 1 - min_ratio is not positive.
double skin_bend_limit(double radius, double length_prev, double length_next, double min_ratio);

/// Closest points of segments p0 -> p1 and q0 -> q1: their parameters s, t in [0, 1] (Ericson,
/// Real-Time Collision Detection 5.1.9; a degenerate segment is its point).
std::pair<double, double> closest_on_segments(const Eigen::Vector3d& p0, const Eigen::Vector3d& p1,
                                              const Eigen::Vector3d& q0, const Eigen::Vector3d& q1);

/// Rotation angle of a unit quaternion: 2 acos(|w|), radians.
double rotation_angle(const Eigen::Quaterniond& q);

} // namespace retail
