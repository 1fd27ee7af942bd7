// The batch's plan (batch.h): every path a batch reads and writes, checked against each other
// before anything is written.
#include "retail/app/batch.h"

#include "retail/base/error.h"
#include "retail/base/files.h"
#include "retail/io/io.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sys/stat.h>

namespace fs = std::filesystem;

namespace retail {
namespace {

/// A path the batch writes: who writes it and what it is.
struct Write {
  std::string path;     ///< as the batch names it
  std::string resolved; ///< resolved_path(path)
  int item = -1;        ///< the item writing it; -1: the batch itself (the index, the summary)
  std::string role;     ///< "the output", "the report", ...
  std::string source;   ///< a sidecar copy: the resolved file it copies ("" otherwise)
};

/// The write in a message: "the report of 'a.gltf' ('out/a.report.json')".
std::string describe(const Write& w, const std::vector<BatchItem>& items) {
  if (w.item < 0) return w.role + " '" + w.path + "'";
  return w.role + " of '" + items[std::size_t(w.item)].rel + "' ('" + w.path + "')";
}

/// A clash involving `w`: its item is refused, or for the summary the batch (Error(Usage)).
void clash(const Write& w, const std::string& why, std::vector<BatchItem>& items) {
  if (w.item < 0 && w.role == "the summary")
    throw Error(ExitCode::Usage, why + "; nothing was written");
  if (w.item >= 0 && items[std::size_t(w.item)].refused.empty())
    items[std::size_t(w.item)].refused = why + "; nothing of it was written";
}

/// Is `path` (resolved) `dir` (resolved) or below it?
bool at_or_below(const std::string& path, const std::string& dir) {
  const fs::path rel = fs::path(path).lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

/// The file's (device, inode) when it exists.
bool inode_of(const std::string& path, std::pair<dev_t, ino_t>& id) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  id = {st.st_dev, st.st_ino};
  return true;
}

/// The items of every model below IN_DIR with their outputs, reports, pages and sidecars.
std::vector<BatchItem> plan_items(const std::string& in_dir, const std::string& out_dir,
                                  bool html) {
  const std::vector<std::string> all = list_models(in_dir);
  std::vector<fs::path> outs;
  std::vector<std::string> out_names;
  for (const auto& f : all) outs.push_back(fs::path(out_dir) / fs::path(f));
  for (const auto& o : outs) out_names.push_back(o.string());
  const std::vector<std::string> reports = batch_report_paths(out_names);
  const std::vector<std::string> pages = page_paths(out_names, out_dir);
  std::vector<BatchItem> items(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    BatchItem& it = items[i];
    it.rel = all[i];
    it.in = (fs::path(in_dir) / fs::path(all[i])).string();
    it.out = out_names[i];
    it.report = reports[i];
    if (html) it.page = pages[i];
    std::vector<std::string> sidecars;
    try {
      sidecars = sidecar_files(it.in);
    } catch (const std::exception&) {
      // The file fails when it runs (the same reading refuses it) and writes nothing.
    }
    for (const std::string& s : sidecars) {
      it.reads.push_back((fs::path(it.in).parent_path() / s).string());
      it.writes.push_back((fs::path(it.out).parent_path() / s).string());
    }
  }
  return items;
}

/// Every path the plan writes, resolved: per item its output, report, page and sidecars, then
/// the index and the summary.
std::vector<Write> plan_writes(const std::vector<BatchItem>& items, const std::string& index,
                               const std::string& summary) {
  std::vector<Write> writes;
  auto add = [&](const std::string& path, int item, const std::string& role,
                 const std::string& source) {
    if (!path.empty()) writes.push_back({path, resolved_path(path), item, role, source});
  };
  for (std::size_t i = 0; i < items.size(); ++i) {
    const BatchItem& it = items[i];
    add(it.out, int(i), "the output", "");
    add(it.report, int(i), "the report", "");
    add(it.page, int(i), "the page", "");
    for (std::size_t k = 0; k < it.writes.size(); ++k)
      add(it.writes[k], int(i), "the sidecar '" + fs::path(it.writes[k]).filename().string() + "'",
          resolved_path(it.reads[k]));
  }
  add(index, -1, "the index", "");
  add(summary, -1, "the summary", "");
  return writes;
}

/// Every write lies inside OUT_DIR, outside IN_DIR, and is none of the files read.
void check_places(const std::vector<Write>& writes, const std::string& in_root,
                  const std::string& out_root, const std::vector<std::string>& reads,
                  std::vector<BatchItem>& items) {
  std::map<std::pair<dev_t, ino_t>, std::string> read_ids;
  std::pair<dev_t, ino_t> id;
  for (const std::string& r : reads)
    if (inode_of(r, id)) read_ids.emplace(id, r);
  for (const Write& w : writes) {
    if (at_or_below(w.resolved, in_root))
      clash(w, describe(w, items) + " lies inside IN_DIR, which the batch reads", items);
    else if (w.role != "the summary" && !at_or_below(w.resolved, out_root))
      clash(w, describe(w, items) + ": a link on its way leads outside OUT_DIR", items);
    else if (inode_of(w.resolved, id) && read_ids.count(id))
      clash(w, describe(w, items) + " is the file '" + read_ids[id] + "' the batch reads", items);
  }
}

/// No two writes land on one file (the same resolved path or inode), but copies of one
/// sidecar; no write is a folder on the way to another.
void check_distinct(const std::vector<Write>& writes, std::vector<BatchItem>& items) {
  std::map<std::string, std::size_t> by_path;
  std::map<std::pair<dev_t, ino_t>, std::size_t> by_id;
  std::map<std::string, std::size_t> folders; // a folder some write goes through -> that write
  std::pair<dev_t, ino_t> id;
  auto against = [&](std::size_t a, std::size_t b) {
    const Write &x = writes[a], &y = writes[b];
    if (!x.source.empty() && x.source == y.source) return; // one sidecar copied twice
    const std::string why = describe(y, items) + " is also " + describe(x, items);
    clash(x, why, items);
    clash(y, why, items);
  };
  for (std::size_t w = 0; w < writes.size(); ++w) {
    const Write& x = writes[w];
    if (auto it = by_path.find(x.resolved); it != by_path.end())
      against(it->second, w);
    else
      by_path.emplace(x.resolved, w);
    if (inode_of(x.resolved, id) && !by_id.emplace(id, w).second) {
      if (writes[by_id[id]].resolved != x.resolved) against(by_id[id], w);
    }
    for (fs::path p = fs::path(x.resolved).parent_path(); p.has_relative_path();
         p = p.parent_path())
      folders.emplace(p.string(), w);
  }
  for (std::size_t w = 0; w < writes.size(); ++w)
    if (auto it = folders.find(writes[w].resolved); it != folders.end()) {
      const std::string why = describe(writes[it->second], items) + " goes through " +
                              describe(writes[w], items) + " as a folder";
      clash(writes[w], why, items);
      clash(writes[it->second], why, items);
    }
}

} // namespace

BatchPlan plan_batch(const std::string& in_dir, const std::string& out_dir,
                     const BatchParams& params) {
  params.validate();
  const std::string in_root = resolved_path(in_dir), out_root = resolved_path(out_dir);
  if (at_or_below(out_root, in_root))
    throw Error(ExitCode::Usage, "OUT_DIR '" + out_dir + "' is inside IN_DIR '" + in_dir +
                                     "': its outputs would be read as inputs");
  BatchPlan plan;
  plan.items = plan_items(in_dir, out_dir, params.html);
  if (params.html) plan.index = (fs::path(out_dir) / "index.html").lexically_normal().string();
  const std::string summary = params.summary_path == "-" ? "" : params.summary_path;
  std::vector<std::string> reads;
  for (const BatchItem& it : plan.items) {
    reads.push_back(it.in);
    reads.insert(reads.end(), it.reads.begin(), it.reads.end());
  }
  const std::vector<Write> writes = plan_writes(plan.items, plan.index, summary);
  check_places(writes, in_root, out_root, reads, plan.items);
  check_distinct(writes, plan.items);
  return plan;
}

} // namespace retail
