// PyTorch 1.13's linear algebra (tests/data/linalg_ref.json from gen_linalg.py: inv, det, slogdet,
// logdet, solve, cholesky; tests/data/linalg_decomp_ref.json from gen_linalg_decomp.py: the
// decompositions whose results PyTorch defines uniquely) replayed natively through the op
// registry on each CPU backend, values and gradients. tests/js/linalg.test.mjs and
// linalg_decomp.test.mjs compare the same cases through the wasm build; here the doctests that the
// C++ mutation sample runs (scripts/mutation_cpp.mjs) check src/kernels/reference/linalg*.cpp
// too: a seeded defect in the triangular solve survived them before. svd and eigh are left to
// the JS test, which compares them up to the signs of the singular vectors and eigenvectors.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "core/error.h"
#include "ops/ops.h"
#include "pytorch_ref_replay.h"
#include "test_util.h"

using sgtest::Json;

namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }
bool has_word(const std::string& s, const std::string& w) { return s.find(w) != std::string::npos; }

}  // namespace

TEST_CASE("ops: PyTorch's inv, det, slogdet, logdet, solve and cholesky replayed natively") {
  const Json ref = sgtest::parse_json(sgtest::read_test_data("linalg_ref.json"));
  int run = 0;
  sgtest::on_each_backend([&] {
    run = 0;
    for (const Json& c : ref["cases"].array) {
      const std::string id = c["id"].string;
      CAPTURE(id);
      const std::string kind = id.substr(0, id.find(' '));
      sg::Attrs attrs;
      std::string op = kind == "logdet" ? "logdet" : "linalg" + std::string(1, char(kind[0] - 'a' + 'A')) + kind.substr(1);
      if (kind == "cholesky") attrs.set("upper", has_word(id, "upper"));
      // linalg.test.mjs's tolerances: 1e-6 of the largest value, 1e-5 for gradients.
      sgtest::replay_ref_case(c, op, attrs, 2e-6, 2e-5);
      ++run;
    }
  });
  CHECK(run == 25);
}

TEST_CASE("ops: PyTorch's svdvals, eigvalsh, qr, solveTriangular, luFactor, matrixExp and pinv replayed natively") {
  const Json ref = sgtest::parse_json(sgtest::read_test_data("linalg_decomp_ref.json"));
  int run = 0;
  sgtest::on_each_backend([&] {
    run = 0;
    for (const Json& c : ref["cases"].array) {
      const std::string id = c["id"].string;
      CAPTURE(id);
      sg::Attrs attrs;
      std::string op;
      if (starts_with(id, "svdvals")) op = "linalgSvdvals";
      if (starts_with(id, "eigvalsh")) op = "linalgEigvalsh";
      if (starts_with(id, "luFactor")) op = "linalgLuFactor";
      if (starts_with(id, "matrixExp")) op = "linalgMatrixExp";
      if (starts_with(id, "pinv")) op = "linalgPinv";
      if (starts_with(id, "qr")) {
        op = "linalgQr";
        // gen_linalg_decomp.py: mode 'complete' for the "complete" cases, 'r' for "qr r" (R only).
        attrs.set("mode", std::string(has_word(id, "complete") ? "complete" : id == "qr r" ? "r" : "reduced"));
      }
      if (starts_with(id, "solveTriangular")) {
        op = "linalgSolveTriangular";
        attrs.set("upper", has_word(id, "upper") || has_word(id, "right") || has_word(id, "broadcast"));
        attrs.set("left", !has_word(id, "right"));
        attrs.set("unitriangular", has_word(id, "unitriangular"));
      }
      if (op.empty()) continue;  // svd, eigh, lstsq and the norms: the JS test's
      if (id == "qr r") {
        // PyTorch's mode='r' returns an empty Q; the case stores R alone.
        const std::vector<sg::Tensor> outs = sg::call_op(op, {sgtest::ref_tensor(c["inputs"].array[0])}, attrs);
        REQUIRE(outs.size() == 2);
        sgtest::check_ref_tensor(outs[1], c["outputs"].array[0], 1e-5, "R");
        ++run;
        continue;
      }
      // linalg_decomp.test.mjs's tolerances: 1e-5 + 2e-6 of the largest value; 2e-5 for gradients.
      sgtest::replay_ref_case(c, op, attrs, 1e-5, 4e-5);
      ++run;
    }
  });
  CHECK(run == 26);
}

TEST_CASE("ops: a singular matrix is PyTorch's error naming the zero pivot, in inv, solve, luFactor and a batch") {
  // LU with partial pivoting of PyTorch's example in linalg.test.mjs: rows 2 = 2 · row 1, so the
  // second pivot (1-based) is the first zero one, as LAPACK's getrf reports it.
  sg::Tensor singular = sg::Tensor::empty({3, 3}, sg::DType::Float32);
  const float values[] = {1, 2, 3, 2, 4, 6, 1, 0, 1};
  std::copy(values, values + 9, singular.f32());
  sgtest::on_each_backend([&] {
    CHECK_THROWS_WITH_AS(sg::call_op("linalgInv", {singular}, {}),
                         "linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because the input matrix is singular.",
                         sg::Error);
    CHECK_THROWS_WITH_AS(sg::call_op("linalgSolve", {singular, sg::ones({3})}, {}),
                         "linalg.solve: The solver failed because the input matrix is singular.", sg::Error);
    // B with no columns: PyTorch 1.13 factors A all the same (an empty X only for an invertible A).
    CHECK_THROWS_WITH_AS(sg::call_op("linalgSolve", {singular, sg::Tensor::empty({3, 0})}, {}),
                         "linalg.solve: The solver failed because the input matrix is singular.", sg::Error);
    CHECK(sg::call_op("linalgSolve", {sg::eye(3), sg::Tensor::empty({3, 0})}, {})[0].shape() == sg::Shape{3, 0});
    const sg::Tensor batch = sg::stack({sg::eye(3), singular}, 0);
    CHECK_THROWS_WITH_AS(sg::call_op("linalgSolve", {batch, sg::Tensor::empty({2, 3, 0})}, {}),
                         "linalg.solve: (Batch element 1): The solver failed because the input matrix is singular.", sg::Error);
    CHECK_THROWS_WITH_AS(sg::call_op("linalgInv", {batch}, {}), doctest::Contains("linalg.inv: (Batch element 1): The diagonal element 2 is zero"),
                         sg::Error);
    // lu_factor's own message, as torch.linalg.lu_factor 1.13 raises it for this matrix (printed by
    // /usr/bin/python3; its pivoting names U[3,3]): alone, and as batch element 0 and 1 (the
    // kernel's first-singular-element record starts at -1, so element 0 must count too).
    const std::string lu_rest = " is zero and using it on lu_solve would result in a division by zero. If you still want to "
                                "perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)";
    CHECK_THROWS_WITH_AS(sg::call_op("linalgLuFactor", {singular}, {}), ("linalg.luFactor: U[3,3]" + lu_rest).c_str(), sg::Error);
    CHECK_THROWS_WITH_AS(sg::call_op("linalgLuFactor", {sg::stack({singular, sg::eye(3)}, 0)}, {}),
                         ("linalg.luFactor: (Batch element 0): U[3,3]" + lu_rest).c_str(), sg::Error);
    CHECK_THROWS_WITH_AS(sg::call_op("linalgLuFactor", {batch}, {}), ("linalg.luFactor: (Batch element 1): U[3,3]" + lu_rest).c_str(),
                         sg::Error);
  });
}
