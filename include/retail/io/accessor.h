// retail — reading accessor data from a validated document.
#pragma once

#include "retail/base/model.h"

#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace retail {

/// Row-major #count by #components matrix of accessor values.
using AccessorData = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Bytes of one element, including the column padding glTF requires for 1- and 2-byte matrices.
int element_size(const Accessor& accessor);

/// Reads accessor `index` as doubles (#count by #components). Normalized integers map to
/// [0,1] / [-1,1] as glTF defines; sparse substitutions are applied.
/// Pre: `model` came from parse_model(doc) (ranges are validated). Failure: Error(InvalidInput)
/// for a sparse index past `count`.
AccessorData read_accessor(const Document& doc, const Model& model, int index);

/// The first element of accessor `index` with a component that is not finite (NaN or
/// infinite), or -1 when every one is. Float accessors are read as stored, without converting
/// them; other component types are finite by type (-1). Pre: as read_accessor.
std::int64_t first_non_finite(const Document& doc, const Model& model, int index);

/// Reads an integer accessor (indices, JOINTS_n) as unsigned values, flattened row-major.
/// Pre: the component type is an unsigned integer type.
std::vector<std::uint32_t> read_accessor_uint(const Document& doc, const Model& model, int index);

} // namespace retail
