// The search lexicon's bytes (docs/search.md, "The lexicon"), made at build time by
// z402-lexicon-build and put here whole, so a program linked with the library needs no file at
// run time. Z402_LEXICON_FILE is the made file's path (libz402/CMakeLists.txt).
asm(".pushsection .rodata.z402_lexicon,\"a\",@progbits\n"
    ".balign 16\n"
    ".globl z402_lexicon_bytes\n"
    ".hidden z402_lexicon_bytes\n"
    "z402_lexicon_bytes:\n"
    ".incbin \"" Z402_LEXICON_FILE "\"\n"
    ".globl z402_lexicon_end\n"
    ".hidden z402_lexicon_end\n"
    "z402_lexicon_end:\n"
    ".popsection\n");
