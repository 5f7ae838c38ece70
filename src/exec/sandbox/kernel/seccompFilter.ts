// The one seccomp program every sandboxed command runs under (classic BPF, loaded by bubblewrap's
// `--seccomp FD` after bubblewrap's own setup, so bubblewrap may still unshare and mount; it then
// binds the sandbox's init and the command alike). It refuses what lets a command reach past the
// sandbox's namespaces and mounts:
//   - every socket family but IP and netlink (`socket()` is an allowlist: AF_INET, AF_INET6,
//     AF_NETLINK). Unix sockets: read-only mounts do not stop `connect()` to a socket file, and the
//     host is full of sockets that run things outside (VS Code's IPC, git's askpass, Docker, the
//     D-Bus session bus, ssh-agent, X11). Families no network namespace confines: AF_VSOCK reaches
//     the hypervisor, the VMs of a host that runs some, a WSL2 machine's Windows side, or the
//     machine's own vsock loopback, past the proxy. The rest (AF_ALG, AF_TIPC, AF_RDS, AF_PACKET,
//     Bluetooth, CAN…) are kernel code no command needs. `socketpair()` stays for AF_UNIX stream
//     and seqpacket sockets (it joins a process to its children): such a pair is connected for
//     good (`connect`/`sendto` to another address: EISCONN). A datagram pair is not: it can
//     `connect()`/`sendto()` any socket file it sees or any abstract name (journald's `/dev/log`,
//     systemd's notify socket, chronyd), and the filter cannot read the address those calls name,
//     so `socketpair(AF_UNIX, SOCK_DGRAM)` (and SOCK_RAW, which unix sockets take as datagram) is
//     refused ("Permission denied"), as is socketpair of any other family.
//   - io_uring (its `IORING_OP_SOCKET` makes a socket without the `socket` call), `bpf`,
//     `userfaultfd`, `perf_event_open`, `ptrace`, `process_vm_readv/writev`, `pidfd_getfd`;
//   - the kernel keyring (`add_key`, `keyctl`, `request_key`: keyrings follow the uid, not the namespace);
//   - new namespaces and mounts (`unshare`, `setns`, `clone` with a namespace flag, `mount` and the
//     new mount API, `pivot_root`), `clone3` (its flags are in memory the filter cannot read: ENOSYS,
//     so libc falls back to `clone`);
//   - machine-wide switches (modules, kexec, reboot, swap, acct, clocks, iopl/ioperm, syslog,
//     quotactl, file handles, lookup_dcookie, vhangup), `personality` other than the default or a
//     query, and the `TIOCSTI`/`TIOCLINUX` ioctls (typing into a terminal).
// Only x86_64 and aarch64 programs run: any other architecture (the i386 table of an x86_64 kernel,
// `int 0x80`, the x32 ABI, arm32 compat) is killed at its first system call, so no refused call is
// reachable through a second table.
import { writeFileSync } from 'node:fs';

/** One `struct sock_filter`: opcode, jumps if true/false (to labels), constant. */
interface Insn {
  code: number;
  k: number;
  jt?: string;
  jf?: string;
  label?: string;
}

const LD_ABS_W = 0x20;
const JA = 0x05;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const ALU_AND_K = 0x54;
const RET_K = 0x06;

const RET_ALLOW = 0x7fff0000;
const RET_KILL_PROCESS = 0x80000000;
const RET_ERRNO = 0x00050000;
export const EPERM = 1;
export const EACCES = 13;
export const ENOSYS = 38;

/** `struct seccomp_data` offsets (little-endian: an argument's low word comes first). */
const NR = 0;
const ARCH = 4;
const arg = (i: number): number => 16 + 8 * i;

export const AUDIT_ARCH_X86_64 = 0xc000003e;
export const AUDIT_ARCH_AARCH64 = 0xc00000b7;
const X32_SYSCALL_BIT = 0x40000000;

/** The socket families a command may make (each refused one answers EAFNOSUPPORT, unix EACCES). */
export const AF_INET = 2;
export const AF_INET6 = 10;
export const AF_NETLINK = 16;
const AF_UNIX = 1;
/** Socket types (the low bits of the type argument; SOCK_NONBLOCK and SOCK_CLOEXEC above them). */
const SOCK_TYPE_MASK = 0xf;
const SOCK_STREAM = 1;
const SOCK_SEQPACKET = 5;
export const EAFNOSUPPORT = 97;
const TIOCSTI = 0x5412;
const TIOCLINUX = 0x541c;
const PER_LINUX = 0;
const PER_QUERY = 0xffffffff;
/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET. */
export const CLONE_NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;

/** Refused outright (EPERM): the call's number on x86_64 and on aarch64 (null: no such call there). */
export const REFUSED_SYSCALLS: Readonly<Record<string, readonly [number, number | null]>> = {
  io_uring_setup: [425, 425],
  io_uring_enter: [426, 426],
  io_uring_register: [427, 427],
  add_key: [248, 217],
  request_key: [249, 218],
  keyctl: [250, 219],
  bpf: [321, 280],
  userfaultfd: [323, 282],
  perf_event_open: [298, 241],
  ptrace: [101, 117],
  process_vm_readv: [310, 270],
  process_vm_writev: [311, 271],
  pidfd_getfd: [438, 438],
  kexec_load: [246, 104],
  kexec_file_load: [320, 294],
  mount: [165, 40],
  umount2: [166, 39],
  pivot_root: [155, 41],
  open_tree: [428, 428],
  move_mount: [429, 429],
  fsopen: [430, 430],
  fsconfig: [431, 431],
  fsmount: [432, 432],
  fspick: [433, 433],
  mount_setattr: [442, 442],
  open_tree_attr: [467, 467],
  unshare: [272, 97],
  setns: [308, 268],
  init_module: [175, 105],
  finit_module: [313, 273],
  delete_module: [176, 106],
  reboot: [169, 142],
  swapon: [167, 224],
  swapoff: [168, 225],
  acct: [163, 89],
  settimeofday: [164, 170],
  clock_settime: [227, 112],
  adjtimex: [159, 171],
  clock_adjtime: [305, 266],
  iopl: [172, null],
  ioperm: [173, null],
  open_by_handle_at: [304, 265],
  name_to_handle_at: [303, 264],
  syslog: [103, 116],
  quotactl: [179, 60],
  quotactl_fd: [443, 443],
  lookup_dcookie: [212, 18],
  vhangup: [153, 58],
};

/** Calls the filter looks into (their arguments), per architecture. */
const CHECKED = {
  socket: [41, 198],
  socketpair: [53, 199],
  clone: [56, 220],
  clone3: [435, 435],
  personality: [135, 92],
  ioctl: [16, 29],
} as const;

function archSection(label: string, which: 0 | 1): Insn[] {
  const out: Insn[] = [{ code: LD_ABS_W, k: NR, label }];
  // x32 system calls share the x86_64 audit arch and carry this bit.
  if (which === 0) out.push({ code: JGE_K, k: X32_SYSCALL_BIT, jt: 'kill' });
  out.push(
    { code: JEQ_K, k: CHECKED.socket[which], jt: 'socket' },
    { code: JEQ_K, k: CHECKED.socketpair[which], jt: 'socketpair' },
    { code: JEQ_K, k: CHECKED.clone[which], jt: 'clone' },
    { code: JEQ_K, k: CHECKED.clone3[which], jt: 'enosys' },
    { code: JEQ_K, k: CHECKED.personality[which], jt: 'personality' },
    { code: JEQ_K, k: CHECKED.ioctl[which], jt: 'ioctl' },
  );
  for (const numbers of Object.values(REFUSED_SYSCALLS)) {
    const nr = numbers[which];
    if (nr !== null) out.push({ code: JEQ_K, k: nr, jt: 'eperm' });
  }
  out.push({ code: JA, k: 0, jt: 'allow' });
  return out;
}

const PROGRAM: Insn[] = [
  { code: LD_ABS_W, k: ARCH },
  { code: JEQ_K, k: AUDIT_ARCH_X86_64, jt: 'x86_64' },
  { code: JEQ_K, k: AUDIT_ARCH_AARCH64, jt: 'aarch64', jf: 'kill' },
  ...archSection('x86_64', 0),
  ...archSection('aarch64', 1),
  // socket(AF_UNIX, …): "Permission denied", as for any refused access; a family not allowed:
  // "Address family not supported", as on a kernel without it (programs then fall back or say so).
  { code: LD_ABS_W, k: arg(0), label: 'socket' },
  { code: JEQ_K, k: AF_INET, jt: 'allow' },
  { code: JEQ_K, k: AF_INET6, jt: 'allow' },
  { code: JEQ_K, k: AF_NETLINK, jt: 'allow' },
  { code: JEQ_K, k: AF_UNIX, jt: 'eacces', jf: 'eafnosupport' },
  // socketpair: AF_UNIX stream or seqpacket only (the family and type are ints: low words).
  { code: LD_ABS_W, k: arg(0), label: 'socketpair' },
  { code: JEQ_K, k: AF_UNIX, jf: 'eafnosupport' },
  { code: LD_ABS_W, k: arg(1) },
  { code: ALU_AND_K, k: SOCK_TYPE_MASK },
  { code: JEQ_K, k: SOCK_STREAM, jt: 'allow' },
  { code: JEQ_K, k: SOCK_SEQPACKET, jt: 'allow', jf: 'eacces' },
  { code: LD_ABS_W, k: arg(0), label: 'clone' },
  { code: JSET_K, k: CLONE_NAMESPACE_FLAGS, jt: 'eperm', jf: 'allow' },
  { code: LD_ABS_W, k: arg(0), label: 'personality' },
  { code: JEQ_K, k: PER_LINUX, jt: 'allow' },
  { code: JEQ_K, k: PER_QUERY, jt: 'allow', jf: 'eperm' },
  // The request is an `unsigned int`: the kernel ignores the high word, so does the filter.
  { code: LD_ABS_W, k: arg(1), label: 'ioctl' },
  { code: JEQ_K, k: TIOCSTI, jt: 'eperm' },
  { code: JEQ_K, k: TIOCLINUX, jt: 'eperm', jf: 'allow' },
  { code: RET_K, k: RET_ALLOW, label: 'allow' },
  { code: RET_K, k: RET_ERRNO | EPERM, label: 'eperm' },
  { code: RET_K, k: RET_ERRNO | EACCES, label: 'eacces' },
  { code: RET_K, k: RET_ERRNO | ENOSYS, label: 'enosys' },
  { code: RET_K, k: RET_ERRNO | EAFNOSUPPORT, label: 'eafnosupport' },
  { code: RET_K, k: RET_KILL_PROCESS, label: 'kill' },
];

/** Assembles `program` into the kernel's layout: 8 bytes an instruction, little-endian. */
export function assemble(program: readonly Insn[]): Buffer {
  const at = new Map<string, number>();
  program.forEach((insn, i) => {
    if (insn.label === undefined) return;
    if (at.has(insn.label)) throw new Error(`seccomp: label ${insn.label} twice`);
    at.set(insn.label, i);
  });
  const offset = (from: number, label: string | undefined, max: number): number => {
    if (label === undefined) return 0;
    const to = at.get(label);
    if (to === undefined || to <= from || to - from - 1 > max) throw new Error(`seccomp: bad jump to ${label} from ${from}`);
    return to - from - 1;
  };
  const out = Buffer.alloc(program.length * 8);
  program.forEach((insn, i) => {
    const always = insn.code === JA;
    out.writeUInt16LE(insn.code, i * 8);
    out.writeUInt8(always ? 0 : offset(i, insn.jt, 255), i * 8 + 2);
    out.writeUInt8(always ? 0 : offset(i, insn.jf, 255), i * 8 + 3);
    out.writeUInt32LE((always ? offset(i, insn.jt, 0xffffffff) : insn.k) >>> 0, i * 8 + 4);
  });
  return out;
}

/** The sandbox's filter, as bubblewrap reads it. */
export function seccompFilter(): Buffer {
  return assemble(PROGRAM);
}

/** Writes the filter to `file` (the sandbox's launcher opens it for bubblewrap). */
export function writeSeccompFilter(file: string): void {
  writeFileSync(file, seccompFilter(), { mode: 0o600 });
}
