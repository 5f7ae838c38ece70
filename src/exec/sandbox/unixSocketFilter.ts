// A seccomp filter (classic BPF, loaded by `bwrap --seccomp FD`) that refuses to create unix-domain
// sockets inside the sandbox. Read-only mounts do not stop `connect()` to a socket file, and the
// host is full of sockets that run things outside the sandbox: the VS Code server's IPC socket
// (`code --install-extension`), git's askpass socket, Docker's, the D-Bus session bus
// (`systemd-run --user`), ssh-agent, X11. Abstract sockets are already out of reach (they belong to
// the network namespace). `socketpair()` stays allowed: it only joins a process to its children
// (libuv's stdio, Python's multiprocessing). 32-bit programs on x86_64 lose `socketcall` (which
// hides its arguments) and the x32 ABI is refused whole.
import { writeFileSync } from 'node:fs';

/** One `struct sock_filter`: opcode, jumps if true/false (relative, in instructions), constant. */
interface Insn {
  code: number;
  jt?: string;
  jf?: string;
  k: number;
  label?: string;
}

const LD_ABS_W = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
/** SECCOMP_RET_ERRNO | EACCES: the program sees "Permission denied", as for any refused access. */
const RET_EACCES = 0x00050000 | 13;

/** `struct seccomp_data` offsets. */
const NR = 0;
const ARCH = 4;
const ARG0 = 16;

const AUDIT_ARCH_X86_64 = 0xc000003e;
const AUDIT_ARCH_I386 = 0x40000003;
const AUDIT_ARCH_AARCH64 = 0xc00000b7;
const X32_SYSCALL_BIT = 0x40000000;
const AF_UNIX = 1;

/** socket(2)'s number per architecture. */
const SOCKET_NR = { x86_64: 41, i386: 359, aarch64: 198 } as const;
const I386_SOCKETCALL = 102;

const PROGRAM: Insn[] = [
  { code: LD_ABS_W, k: ARCH },
  { code: JEQ_K, k: AUDIT_ARCH_X86_64, jt: 'x86_64', jf: 'not_x86_64' },
  // x86_64
  { code: LD_ABS_W, k: NR, label: 'x86_64' },
  { code: JGE_K, k: X32_SYSCALL_BIT, jt: 'deny', jf: 'x86_64_nr' },
  { code: JEQ_K, k: SOCKET_NR.x86_64, jt: 'check_family', jf: 'allow', label: 'x86_64_nr' },
  // i386 (compat mode on an x86_64 kernel)
  { code: JEQ_K, k: AUDIT_ARCH_I386, jt: 'i386', jf: 'not_i386', label: 'not_x86_64' },
  { code: LD_ABS_W, k: NR, label: 'i386' },
  { code: JEQ_K, k: I386_SOCKETCALL, jt: 'deny', jf: 'i386_socket' },
  { code: JEQ_K, k: SOCKET_NR.i386, jt: 'check_family', jf: 'allow', label: 'i386_socket' },
  // aarch64
  { code: JEQ_K, k: AUDIT_ARCH_AARCH64, jt: 'aarch64', jf: 'allow', label: 'not_i386' },
  { code: LD_ABS_W, k: NR, label: 'aarch64' },
  { code: JEQ_K, k: SOCKET_NR.aarch64, jt: 'check_family', jf: 'allow' },
  // socket(AF_UNIX, …)
  { code: LD_ABS_W, k: ARG0, label: 'check_family' },
  { code: JEQ_K, k: AF_UNIX, jt: 'deny', jf: 'allow' },
  { code: RET_K, k: RET_ALLOW, label: 'allow' },
  { code: RET_K, k: RET_EACCES, label: 'deny' },
];

/** The filter as the kernel takes it: 8 bytes an instruction, little-endian. */
export function unixSocketFilter(): Buffer {
  const at = new Map<string, number>();
  PROGRAM.forEach((insn, i) => {
    if (insn.label) at.set(insn.label, i);
  });
  const jump = (from: number, label: string | undefined): number => {
    if (label === undefined) return 0;
    const to = at.get(label);
    if (to === undefined || to <= from || to - from - 1 > 255) throw new Error(`bad jump to ${label}`);
    return to - from - 1;
  };
  const out = Buffer.alloc(PROGRAM.length * 8);
  PROGRAM.forEach((insn, i) => {
    out.writeUInt16LE(insn.code, i * 8);
    out.writeUInt8(jump(i, insn.jt), i * 8 + 2);
    out.writeUInt8(jump(i, insn.jf), i * 8 + 3);
    out.writeUInt32LE(insn.k >>> 0, i * 8 + 4);
  });
  return out;
}

/** Writes the filter to `file` (bwrap reads it from a descriptor the spawn opens on it). */
export function writeUnixSocketFilter(file: string): void {
  writeFileSync(file, unixSocketFilter(), { mode: 0o600 });
}
