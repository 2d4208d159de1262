# Prints the sanitizer reports of a test log that are ours: every
# AddressSanitizer error and UBSan "runtime error:" line, and each leak of a
# LeakSanitizer report whose stack reaches a frame outside Criterion's
# runner. A leak whose frames are all the allocator's and libcriterion's
# (the runner keeps an allocation of its own when tests run in parallel) is
# not ours and is left out. Exit status 1 when anything was printed.
# SPDX-License-Identifier: MIT
function flush_leak() {
	if (in_leak && ours) { printf "%s", leak; found = 1 }
	in_leak = 0; ours = 0; leak = ""
}
/ERROR: AddressSanitizer|runtime error:/ { flush_leak(); print; found = 1; next }
/^(Direct|Indirect) leak of / { flush_leak(); in_leak = 1; leak = $0 "\n"; next }
in_leak && /^ *#[0-9]+ / {
	leak = leak $0 "\n"
	if ($0 !~ /libcriterion\.so|asan_malloc_linux|__interceptor_/) ours = 1
	next
}
in_leak { flush_leak() }
END { flush_leak(); exit found ? 1 : 0 }
