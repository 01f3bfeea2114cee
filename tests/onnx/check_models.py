"""Runs the ONNX checker (full_check: shape inference too) on every .onnx file given or found in the
directories given; prints one line per file and exits 1 if any fails. Used by tests/js/onnx_export.test.mjs
with Debian's python3-onnx (1.12: IR version <= 8, opset <= 17)."""
import os
import sys

import onnx


def files(paths):
    for p in paths:
        if os.path.isdir(p):
            for name in sorted(os.listdir(p)):
                if name.endswith('.onnx'):
                    yield os.path.join(p, name)
        else:
            yield p


def main():
    failed = 0
    for path in files(sys.argv[1:]):
        try:
            model = onnx.load(path)
            onnx.checker.check_model(model, full_check=True)
            print(f'ok {os.path.basename(path)} ir={model.ir_version} opset={model.opset_import[0].version}')
        except Exception as e:  # noqa: BLE001 - report every file
            failed += 1
            print(f'FAIL {os.path.basename(path)}: {type(e).__name__}: {e}')
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
