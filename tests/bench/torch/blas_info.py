"""Which BLAS PyTorch's matmuls run on in this process, for the bench's PyTorch scripts' reports: Debian's
python3-torch calls the system libblas.so.3, which is OpenBLAS with libopenblas0-pthread installed and Debian's
reference BLAS without it (a 2026-11-30 fresh machine had no OpenBLAS: PyTorch's GPT-2 LoRA step took 82-85 s of
CPU there against 2.3 s with OpenBLAS, a yardstick that flatters simdgrad 35-fold). The JS side
(lib/torch.mjs: fastBlas) refuses a ratio against a reference BLAS."""
import ctypes


def mapped_libraries(word):
    """The shared objects this process loaded whose path contains `word`."""
    try:
        with open("/proc/self/maps") as f:
            return sorted({line.split()[-1] for line in f if word in line.lower() and "/" in line})
    except OSError:
        return []


def blas_library():
    """The BLAS shared object this process loaded (which one PyTorch's matmuls call)."""
    return ", ".join(mapped_libraries("blas")) or "none found"


def openblas_core():
    """The kernel family OpenBLAS chose (openblas_get_corename), or None when not OpenBLAS."""
    for lib in mapped_libraries("openblas"):
        try:
            f = ctypes.CDLL(lib).openblas_get_corename
            f.restype = ctypes.c_char_p
            return f().decode()
        except (OSError, AttributeError):
            continue
    return None


def openblas_threads():
    """OpenBLAS's own thread count (openblas_get_num_threads), or None when not OpenBLAS."""
    for lib in mapped_libraries("openblas"):
        try:
            return ctypes.CDLL(lib).openblas_get_num_threads()
        except (OSError, AttributeError):
            continue
    return None


def blas_report():
    """The fields every PyTorch script adds to its JSON line."""
    return {"blas": blas_library(), "openblas_core": openblas_core(), "openblas_threads": openblas_threads()}
