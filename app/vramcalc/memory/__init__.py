"""One pure function per memory component: specs in, a Component (bytes and its formula) out."""
