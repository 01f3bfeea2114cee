// matmul (src/ops/matmul.cpp): every rank combination of PyTorch's rules, broadcast batch
// dims, strided/transposed/expanded operands and empty sizes against a naive double loop
// written from the rules (not from the code), on every backend; the error messages; and
// gradchecks including broadcast batches and transposed-view operands. Then the matrix helpers
// (matrix.cpp: tril, triu, diag, outer) and einsum (einsum.cpp, contracted by matmul).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "gradcheck.h"
#include "test_util.h"
#include "kernels/backend.h"
#include "ops/ops.h"

using namespace sg;
using sgtest::from;
using sgtest::gradcheck;
using sgtest::ints;
using sgtest::leaf;
using sgtest::on_each_backend;
using sgtest::values;

namespace {

using V = std::vector<double>;


// Element at a multi-index of any tensor (through Tensor::at, which follows the strides).
double elem(const Tensor& t, const Shape& idx) {
  int64_t flat = 0;
  for (size_t d = 0; d < idx.size(); ++d) flat = flat * t.shape()[d] + idx[d];
  return t.at(flat);
}

struct Ref {
  Shape shape;
  V values;
};

// torch.matmul's documented rules, spelled out with index loops in double.
Ref ref_matmul(const Tensor& a, const Tensor& b) {
  Shape as = a.shape(), bs = b.shape();
  const bool a1 = as.size() == 1, b1 = bs.size() == 1;
  if (a1) as.insert(as.begin(), 1);
  if (b1) bs.push_back(1);
  const int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  REQUIRE(K == bs[bs.size() - 2]);
  const Shape ba(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
  const size_t nb = std::max(ba.size(), bb.size());
  Shape batch(nb);
  for (size_t i = 0; i < nb; ++i) {
    const int64_t da = i + ba.size() >= nb ? ba[i + ba.size() - nb] : 1;
    const int64_t db = i + bb.size() >= nb ? bb[i + bb.size() - nb] : 1;
    REQUIRE((da == db || da == 1 || db == 1));
    batch[i] = da == 1 ? db : da;
  }
  Ref r;
  r.shape = batch;
  if (!a1) r.shape.push_back(M);
  if (!b1) r.shape.push_back(N);
  int64_t nbatch = 1;
  for (int64_t d : batch) nbatch *= d;
  for (int64_t q = 0; q < nbatch; ++q) {
    Shape bi(nb);
    for (int64_t rest = q, d = int64_t(nb) - 1; d >= 0; --d) {
      bi[d] = rest % batch[d];
      rest /= batch[d];
    }
    // This batch index as seen by each operand (size-1 dims broadcast; missing dims dropped).
    auto operand_index = [&](const Shape& own) {
      Shape idx;
      for (size_t i = 0; i < own.size(); ++i) idx.push_back(own[i] == 1 ? 0 : bi[i + nb - own.size()]);
      return idx;
    };
    const Shape ia = operand_index(ba), ib = operand_index(bb);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k) {
          Shape xa = ia, xb = ib;
          if (!a1) xa.push_back(m);
          xa.push_back(k);
          xb.push_back(k);
          if (!b1) xb.push_back(n);
          acc += elem(a, xa) * elem(b, xb);
        }
        r.values.push_back(acc);
      }
  }
  return r;
}

void check_matmul(const Tensor& a, const Tensor& b) {
  CAPTURE(shape_str(a.shape()));
  CAPTURE(shape_str(b.shape()));
  Ref want = ref_matmul(a, b);
  Tensor got = matmul(a, b);
  REQUIRE(got.shape() == want.shape);
  CHECK(got.dtype() == DType::Float32);
  for (int64_t i = 0; i < got.numel(); ++i)
    CHECK_MESSAGE(std::fabs(got.at(i) - want.values[i]) <= 1e-4 * (1 + std::fabs(want.values[i])),
                  "element " << i << ": got " << got.at(i) << ", want " << want.values[i]);
}

}  // namespace

TEST_CASE("matmul: every rank combination and broadcast batches vs a naive loop") {
  on_each_backend([] {
    const std::vector<std::pair<Shape, Shape>> cases{
        {{3}, {3}},           {{3}, {3, 4}},        {{2, 3}, {3}},          {{2, 3}, {3, 4}},
        {{2, 2, 3}, {2, 3, 4}}, {{2, 1, 3, 4}, {5, 4, 6}}, {{4}, {2, 4, 5}}, {{2, 3, 4}, {4}},
        {{7, 13}, {13, 5}},   {{3, 7, 13}, {13, 5}}, {{7, 13}, {3, 13, 5}}, {{33, 65}, {65, 17}},
        {{1, 5}, {5, 1}},     {{1}, {1}},           {{2, 1, 1, 3}, {1, 4, 3, 2}}, {{5, 1, 9}, {9}},
        {{1, 17, 31}, {4, 31, 9}}};
    unsigned seed = 1;
    for (const auto& [sa, sb] : cases) {
      const Tensor a = leaf(sa, -1, 1, seed++, false);
      check_matmul(a, leaf(sb, -1, 1, seed++, false));
    }
  });
}

TEST_CASE("matmul: transposed, strided and expanded operands") {
  on_each_backend([] {
    Tensor a = leaf({4, 7}, -1, 1, 3, false), b = leaf({5, 4}, -1, 1, 4, false);
    check_matmul(transpose(a, 0, 1), transpose(b, 0, 1));   // [7,4]·[4,5], both transposed
    check_matmul(transpose(a, 0, 1), leaf({4, 6}, -1, 1, 5, false));
    check_matmul(leaf({6, 4}, -1, 1, 6, false), transpose(b, -1, -2));
    Tensor ba = leaf({3, 5, 4}, -1, 1, 7, false);
    check_matmul(transpose(ba, -1, -2), leaf({3, 5, 2}, -1, 1, 8, false));  // batched, trans_a
    check_matmul(leaf({3, 2, 4}, -1, 1, 9, false), transpose(ba, 1, 2));  // batched, trans_b
    check_matmul(transpose(ba, 0, 1), leaf({4, 6}, -1, 1, 10, false));  // batch dim not outermost
    // Row stride larger than the row (a narrowed view), and a stepped (non-unit) inner stride.
    Tensor wide = leaf({4, 9}, -1, 1, 11, false);
    check_matmul(narrow(wide, 1, 2, 5), leaf({5, 3}, -1, 1, 12, false));
    check_matmul(slice(wide, 1, 0, 9, 2), leaf({5, 3}, -1, 1, 13, false));
    check_matmul(leaf({3, 4}, -1, 1, 14, false), slice(wide, 1, 1, 9, 3));
    // Expanded batch (stride 0) and an expanded matrix row.
    check_matmul(leaf({3, 2, 4}, -1, 1, 15, false), expand(leaf({1, 4, 5}, -1, 1, 16, false), {3, 4, 5}));
    check_matmul(expand(leaf({1, 4}, -1, 1, 17, false), {3, 4}), leaf({4, 2}, -1, 1, 18, false));
    // 1-D strided operands.
    Tensor v = leaf({10}, -1, 1, 19, false);
    check_matmul(slice(v, 0, 0, 10, 2), slice(v, 0, 1, 10, 2));
    check_matmul(leaf({3, 5}, -1, 1, 20, false), slice(v, 0, 0, 10, 2));
    check_matmul(slice(v, 0, 0, 10, 2), leaf({5, 2}, -1, 1, 21, false));
    // The transposed view of a 2-D tensor's (t.T) row-vector product.
    check_matmul(transpose(leaf({1, 6}, -1, 1, 22, false), 0, 1), leaf({1, 3}, -1, 1, 23, false));
  });
}

TEST_CASE("matmul: empty sizes") {
  on_each_backend([] {
    Tensor z = matmul(leaf({2, 0}, -1, 1, 1, false), leaf({0, 3}, -1, 1, 2, false));
    CHECK(z.shape() == Shape{2, 3});
    for (int64_t i = 0; i < 6; ++i) CHECK(z.at(i) == 0.0);
    CHECK(matmul(leaf({0, 3}, -1, 1, 1, false), leaf({3, 4}, -1, 1, 2, false)).shape() == Shape{0, 4});
    CHECK(matmul(leaf({2, 3}, -1, 1, 1, false), leaf({3, 0}, -1, 1, 2, false)).shape() == Shape{2, 0});
    CHECK(matmul(leaf({0, 2, 3}, -1, 1, 1, false), leaf({3, 4}, -1, 1, 2, false)).shape() == Shape{0, 2, 4});
    Tensor d = matmul(leaf({0}, -1, 1, 1, false), leaf({0}, -1, 1, 2, false));
    CHECK(d.shape() == Shape{});
    CHECK(d.item() == 0.0);
  });
}

TEST_CASE("matmul: errors name both shapes") {
  Tensor a = leaf({2, 3}, -1, 1, 1, false), b = leaf({4, 5}, -1, 1, 2, false);
  sgtest::check_error([&] { matmul(a, b); }, "matmul: shapes [2, 3] and [4, 5] are not aligned (3 != 4)");
  sgtest::check_error([&] { matmul(leaf({3}, -1, 1, 1, false), leaf({4}, -1, 1, 1, false)); },
                      "matmul: shapes [3] and [4] are not aligned (3 != 4)");
  sgtest::check_error([&] { matmul(leaf({2, 3}, -1, 1, 1, false), leaf({4}, -1, 1, 1, false)); },
                      "matmul: shapes [2, 3] and [4] are not aligned (3 != 4)");
  CHECK_ERROR(matmul(leaf({2, 2, 3}, -1, 1, 1, false), leaf({3, 3, 4}, -1, 1, 1, false)),
              "matmul: the batch dims of shapes [2, 2, 3] and [3, 3, 4] cannot be broadcast");
  CHECK_ERROR(matmul(scalar_tensor(2.0), b), "matmul: both arguments must be at least 1-D, got shapes [] and [4, 5]");
  CHECK_ERROR(matmul(zeros({2, 3}, DType::Int32), leaf({3, 2}, -1, 1, 1, false)),
              "matmul: expected two float32 or two float64 tensors, got int32 and float32 (cast one first, e.g. x.double())");
}

TEST_CASE("matmul: hand values") {
  Tensor a = sgtest::from({2, 2}, {1, 2, 3, 4});
  Tensor b = sgtest::from({2, 2}, {5, 6, 7, 8});
  Tensor c = matmul(a, b);
  const V want{19, 22, 43, 50};
  for (int i = 0; i < 4; ++i) CHECK(c.at(i) == want[i]);
  CHECK(matmul(sgtest::from({3}, {1, 2, 3}), sgtest::from({3}, {4, 5, 6})).item() == 32.0);
  // Gradient of Σ A·B: dA = 1·Bᵀ (row sums of B), dB = Aᵀ·1 (column sums of A).
  Tensor la = sgtest::from({2, 2}, {1, 2, 3, 4}, true);
  Tensor lb = sgtest::from({2, 2}, {5, 6, 7, 8}, true);
  sum(matmul(la, lb)).backward();
  const V da{11, 15, 11, 15}, db{4, 4, 6, 6};
  for (int i = 0; i < 4; ++i) {
    CHECK(la.grad().at(i) == da[i]);
    CHECK(lb.grad().at(i) == db[i]);
  }
}

TEST_CASE("matmul: gradchecks (ranks, broadcast batches, transposed views, odd sizes)") {
  using Ins = std::vector<Tensor>;
  auto mm = [](Ins& in) { return matmul(in[0], in[1]); };
  const std::vector<std::pair<Shape, Shape>> cases{
      {{3}, {3}},         {{3}, {3, 4}},        {{2, 3}, {3}},          {{2, 3}, {3, 4}},
      {{2, 2, 3}, {2, 3, 4}}, {{2, 1, 3, 4}, {5, 4, 6}}, {{4}, {2, 4, 5}}, {{2, 3, 4}, {4}},
      {{7, 13}, {13, 5}}, {{3, 2, 4}, {4, 5}},  {{2, 4}, {3, 4, 5}},   {{3, 1, 2}, {1, 2, 2}}};
  unsigned seed = 30;
  for (const auto& shapes : cases) {
    const auto& sa = shapes.first;
    const auto& sb = shapes.second;
    CAPTURE(shape_str(sa));
    CAPTURE(shape_str(sb));
    gradcheck("matmul", mm, {leaf(sa, -1, 1, seed++), leaf(sb, -1, 1, seed++)});
  }
  // Only one side requiring grad.
  gradcheck("matmul_a_only", mm, {leaf({3, 4}), leaf({4, 2}, -1, 1, 3, false)});
  gradcheck("matmul_b_only", mm, {leaf({2, 3, 4}, -1, 1, 4, false), leaf({4, 2})});
  // Transposed-view operands (x.T, transpose(-1, -2)) flow through gemm's transposes.
  gradcheck("matmul_tT", [](Ins& in) { return matmul(transpose(in[0], 0, 1), transpose(in[1], 0, 1)); },
            {leaf({4, 3}, -1, 1, 5), leaf({5, 4}, -1, 1, 6)});
  gradcheck("matmul_batched_T",
            [](Ins& in) { return matmul(transpose(in[0], -1, -2), in[1]); },
            {leaf({2, 4, 3}, -1, 1, 7), leaf({1, 4, 2}, -1, 1, 8)});
  gradcheck("matmul_expand", [](Ins& in) { return matmul(in[0], expand(in[1], {3, 4, 2})); },
            {leaf({3, 2, 4}, -1, 1, 9), leaf({1, 4, 2}, -1, 1, 10)});
  gradcheck("matmul_xxT", [](Ins& in) { return matmul(in[0], transpose(in[0], 0, 1)); }, {leaf({3, 5}, -1, 1, 11)});
}

TEST_CASE("matrix: triangles, diagonals, outer: gradients and dtypes") {
  using Ins = std::vector<Tensor>;
  sgtest::on_each_backend([] {
    for (int64_t k : {-1, 0, 2}) {
      gradcheck("tril", [k](Ins& in) { return tril(in[0], k); }, {leaf({2, 3, 4}, -1, 1, 18)});
      gradcheck("triu", [k](Ins& in) { return triu(in[0], k); }, {leaf({3, 4}, -1, 1, 19)});
      gradcheck("diag 1-D", [k](Ins& in) { return diag(in[0], k); }, {leaf({3}, -1, 1, 20)});
      gradcheck("diag 2-D", [k](Ins& in) { return diag(in[0], k); }, {leaf({3, 4}, -1, 1, 21)});
    }
    gradcheck("outer", [](Ins& in) { return outer(in[0], in[1]); }, {leaf({3}, -1, 1, 22), leaf({2}, -1, 1, 23)});
  });
  CHECK(tril(sgtest::bools({2, 2}, {1, 1, 1, 1})).dtype() == DType::Bool);
  CHECK(values(triu(ints({2, 2}, {1, 2, 3, 4}))) == std::vector<double>{1, 2, 0, 4});
  CHECK(values(diag(ints({2}, {5, 6}), 1)) == std::vector<double>{0, 5, 0, 0, 0, 6, 0, 0, 0});
  CHECK(diag(zeros({2, 3}), 3).shape() == Shape{0});
  CHECK(diag(zeros({0}), 2).shape() == Shape{2, 2});
  // diag of a matrix is a new tensor, not a view.
  const Tensor m = from({2, 2}, {1, 2, 3, 4});
  CHECK(diag(m).impl()->storage != m.impl()->storage);
}

TEST_CASE("einsum: its forms against matmul, and their gradients") {
  using Ins = std::vector<Tensor>;
  const Tensor a = leaf({3, 4}, -1, 1, 24, false), b = leaf({4, 5}, -1, 1, 25, false);
  const Tensor want = matmul(a, b), got = einsum("ij,jk->ik", {a, b});
  REQUIRE(got.shape() == want.shape());
  for (int64_t i = 0; i < got.numel(); ++i) CHECK(got.at(i) == doctest::Approx(want.at(i)).epsilon(1e-6));
  CHECK(einsum("ii", {from({2, 2}, {1, 2, 3, 4})}).item() == 5);  // the trace
  CHECK(einsum(" i j -> j i ", {a}).shape() == Shape{4, 3});
  CHECK(einsum("ij->ji", {a}).impl()->storage != a.impl()->storage);
  sgtest::on_each_backend([] {
    const std::vector<std::pair<std::string, std::vector<Shape>>> forms = {
        {"bij,bjk->bik", {{2, 3, 4}, {2, 4, 2}}},
        {"bhqd,bhkd->bhqk", {{1, 2, 3, 2}, {1, 2, 4, 2}}},
        {"ii->i", {{3, 3}}},
        {"iji->j", {{2, 3, 2}}},
        {"...ij,...jk", {{2, 1, 2, 3}, {3, 3, 2}}},
        {"bn,anm,bm->ba", {{2, 3}, {2, 3, 2}, {2, 2}}},
        {"i,j", {{3}, {2}}},
        {"ij,ij->", {{2, 3}, {1, 3}}},
    };
    unsigned seed = 30;
    for (const auto& [eq, shapes] : forms) {
      Ins in;
      for (const Shape& s : shapes) in.push_back(leaf(s, -1, 1, seed++));
      gradcheck("einsum " + eq, [eq = eq](Ins& t) { return einsum(eq, t); }, in);
    }
  });
}
