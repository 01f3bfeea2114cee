// SG_UNDER_ASAN: defined when this translation unit is compiled with AddressSanitizer, by g++
// (__SANITIZE_ADDRESS__) or clang++ (__has_feature(address_sanitizer)). The allocator caches
// nothing then; tests that only need size, not memory checking, shrink.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define SG_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SG_UNDER_ASAN 1
#endif
#endif
