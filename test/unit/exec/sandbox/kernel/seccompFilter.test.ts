// The seccomp program as data, run through a small classic-BPF interpreter for both architectures
// (aarch64 cannot be run natively here), and the environment allowlist as a function.
import * as assert from 'node:assert/strict';
import { sandboxEnv } from '../../../../../src/exec/sandbox/sandboxEnv';
import { AUDIT_ARCH_AARCH64, AUDIT_ARCH_X86_64, CLONE_NAMESPACE_FLAGS, REFUSED_SYSCALLS, seccompFilter } from '../../../../../src/exec/sandbox/kernel/seccompFilter';

const ALLOW = 0x7fff0000;
const KILL = 0x80000000;
const errno = (n: number): number => 0x00050000 | n;

/** Runs the filter on one system call: nr, arch, and up to six 64-bit arguments. */
function verdict(nr: number, arch: number, args: number[] = []): number {
  const prog = seccompFilter();
  const data = Buffer.alloc(64);
  data.writeUInt32LE(nr >>> 0, 0);
  data.writeUInt32LE(arch >>> 0, 4);
  args.forEach((a, i) => data.writeBigUInt64LE(BigInt.asUintN(64, BigInt(a)), 16 + 8 * i));
  let acc = 0;
  for (let pc = 0, steps = 0; pc * 8 < prog.length && steps < 1000; pc++, steps++) {
    const code = prog.readUInt16LE(pc * 8);
    const jt = prog.readUInt8(pc * 8 + 2);
    const jf = prog.readUInt8(pc * 8 + 3);
    const k = prog.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) acc = data.readUInt32LE(k);
    else if (code === 0x06) return k;
    else if (code === 0x05) pc += k;
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else if (code === 0x45) pc += (acc & k) !== 0 ? jt : jf;
    else if (code === 0x54) acc = (acc & k) >>> 0;
    else throw new Error(`opcode ${code}`);
  }
  throw new Error('fell off the end');
}

describe('exec/sandbox: the seccomp program', () => {
  it('refuses every listed call with EPERM on x86_64 and aarch64', () => {
    for (const [name, [x86, arm]] of Object.entries(REFUSED_SYSCALLS)) {
      assert.equal(verdict(x86, AUDIT_ARCH_X86_64), errno(1), `${name} on x86_64`);
      if (arm !== null) assert.equal(verdict(arm, AUDIT_ARCH_AARCH64), errno(1), `${name} on aarch64`);
    }
  });

  it('allows everyday calls (read, write, openat, execve, mmap, socketpair of a unix stream, wait4) on both', () => {
    for (const nr of [0, 1, 257, 59, 9, 61]) assert.equal(verdict(nr, AUDIT_ARCH_X86_64), ALLOW, `x86_64 ${nr}`);
    for (const nr of [63, 64, 56, 221, 222, 260]) assert.equal(verdict(nr, AUDIT_ARCH_AARCH64), ALLOW, `aarch64 ${nr}`);
    assert.equal(verdict(53, AUDIT_ARCH_X86_64, [1, 1, 0]), ALLOW);
    assert.equal(verdict(199, AUDIT_ARCH_AARCH64, [1, 1, 0]), ALLOW);
  });

  it('socketpair: AF_UNIX stream and seqpacket only (with or without NONBLOCK/CLOEXEC); datagram and raw EACCES; other families EAFNOSUPPORT', () => {
    const NONBLOCK_CLOEXEC = 0o4000 | 0o2000000;
    for (const [nr, arch] of [[53, AUDIT_ARCH_X86_64], [199, AUDIT_ARCH_AARCH64]] as const) {
      for (const type of [1, 5]) {
        assert.equal(verdict(nr, arch, [1, type, 0]), ALLOW, `type ${type}`);
        assert.equal(verdict(nr, arch, [1, type | NONBLOCK_CLOEXEC, 0]), ALLOW, `type ${type} with flags`);
      }
      // SOCK_DGRAM 2, SOCK_RAW 3 (a unix datagram socket), SOCK_RDM 4, SOCK_PACKET 10, and any other.
      for (let type = 0; type < 16; type++) {
        if (type === 1 || type === 5) continue;
        assert.equal(verdict(nr, arch, [1, type, 0]), errno(13), `type ${type}`);
        assert.equal(verdict(nr, arch, [1, type | NONBLOCK_CLOEXEC, 0]), errno(13), `type ${type} with flags`);
      }
      // The type is an int: a high word cannot turn a datagram pair into an allowed one.
      assert.equal(verdict(nr, arch, [1, 0x1_0000_0002, 0]), errno(13));
      for (const family of [0, 2, 10, 16, 30, 40]) assert.equal(verdict(nr, arch, [family, 1, 0]), errno(97), `family ${family}`);
    }
  });

  it('socket: an allowlist — AF_INET, AF_INET6, AF_NETLINK allowed; AF_UNIX EACCES; every other family (vsock, alg, packet…) EAFNOSUPPORT', () => {
    for (const [nr, arch] of [[41, AUDIT_ARCH_X86_64], [198, AUDIT_ARCH_AARCH64]] as const) {
      assert.equal(verdict(nr, arch, [1, 1, 0]), errno(13));
      assert.equal(verdict(nr, arch, [2, 1, 0]), ALLOW);
      assert.equal(verdict(nr, arch, [10, 1, 0]), ALLOW);
      assert.equal(verdict(nr, arch, [16, 3, 0]), ALLOW);
      for (let family = 0; family < 64; family++) {
        if ([1, 2, 10, 16].includes(family)) continue;
        assert.equal(verdict(nr, arch, [family, 1, 0]), errno(97), `family ${family}`);
      }
      // The family is an int: the high word is ignored by the kernel, and by the filter.
      assert.equal(verdict(nr, arch, [0x1_0000_0028, 1, 0]), errno(97));
      assert.equal(verdict(nr, arch, [0x1_0000_0002, 1, 0]), ALLOW);
    }
  });

  it('clone with any namespace flag refused, plain fork/thread clones allowed; clone3 answers ENOSYS', () => {
    for (const [nr, arch] of [[56, AUDIT_ARCH_X86_64], [220, AUDIT_ARCH_AARCH64]] as const) {
      assert.equal(verdict(nr, arch, [17]), ALLOW);
      assert.equal(verdict(nr, arch, [0x3d0f00]), ALLOW, 'a pthread_create clone');
      for (let bit = 0; bit < 32; bit++) {
        const flag = 2 ** bit;
        if (CLONE_NAMESPACE_FLAGS & flag) assert.equal(verdict(nr, arch, [flag | 17]), errno(1), `flag ${flag.toString(16)}`);
      }
    }
    assert.equal(verdict(435, AUDIT_ARCH_X86_64), errno(38));
    assert.equal(verdict(435, AUDIT_ARCH_AARCH64), errno(38));
  });

  it('personality: only PER_LINUX and the query; ioctl: TIOCSTI and TIOCLINUX refused, whatever the high word', () => {
    assert.equal(verdict(135, AUDIT_ARCH_X86_64, [0]), ALLOW);
    assert.equal(verdict(135, AUDIT_ARCH_X86_64, [0xffffffff]), ALLOW);
    assert.equal(verdict(135, AUDIT_ARCH_X86_64, [0x0008]), errno(1));
    assert.equal(verdict(92, AUDIT_ARCH_AARCH64, [0x0040000]), errno(1));
    assert.equal(verdict(16, AUDIT_ARCH_X86_64, [0, 0x5412]), errno(1));
    assert.equal(verdict(16, AUDIT_ARCH_X86_64, [0, 0x1_0000_5412]), errno(1));
    assert.equal(verdict(29, AUDIT_ARCH_AARCH64, [0, 0x541c]), errno(1));
    assert.equal(verdict(16, AUDIT_ARCH_X86_64, [0, 0x5401]), ALLOW, 'TCGETS');
  });

  it('kills any other architecture and the x32 ABI at their first call', () => {
    assert.equal(verdict(20, 0x40000003), KILL, 'i386 getpid');
    assert.equal(verdict(0, 0x40000028), KILL, 'arm32 compat');
    assert.equal(verdict(0x40000000 | 39, AUDIT_ARCH_X86_64), KILL, 'x32 getpid');
  });
});

describe('exec/sandbox: the environment allowlist', () => {
  const host = {
    PATH: '/usr/bin',
    HOME: '/home/u',
    LC_ALL: 'C',
    GITHUB_TOKEN: 't',
    SSH_AUTH_SOCK: '/s',
    VSCODE_IPC_HOOK_CLI: '/v',
    GIT_ASKPASS: '/vscode/askpass.sh',
    AGENT_BASH_OWNER: 'o',
    FROM_DIRENV: 'd',
    GIT_CONFIG_COUNT: '2',
    GIT_CONFIG_KEY_0: 'http.extraHeader',
    GIT_CONFIG_VALUE_0: 'Authorization: token x',
    GIT_CONFIG_KEY_1: 'core.pager',
    GIT_CONFIG_VALUE_1: 'cat',
  };

  it('keeps the allowlist, what the call gave, and Agent Bash own git settings renumbered; drops the rest', () => {
    assert.deepEqual(sandboxEnv(host, { given: { FROM_DIRENV: 'd' } }), {
      PATH: '/usr/bin',
      HOME: '/home/u',
      LC_ALL: 'C',
      AGENT_BASH_OWNER: 'o',
      FROM_DIRENV: 'd',
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'core.pager',
      GIT_CONFIG_VALUE_0: 'cat',
    });
  });

  it('a value the call gave under a name the host also has wins only when it is the call value', () => {
    assert.equal(sandboxEnv({ GITHUB_TOKEN: 'host' }, { given: { GITHUB_TOKEN: 'other' } }).GITHUB_TOKEN, undefined);
    assert.equal(sandboxEnv({ GITHUB_TOKEN: 'mine' }, { given: { GITHUB_TOKEN: 'mine' } }).GITHUB_TOKEN, 'mine');
  });

  it('agentBash.sandbox.env.allow adds names and globs', () => {
    const env = sandboxEnv(host, { allow: ['GITHUB_*', 'SSH_AUTH_SOCK', 'GIT_CONFIG_*'] });
    assert.equal(env.GITHUB_TOKEN, 't');
    assert.equal(env.SSH_AUTH_SOCK, '/s');
    assert.equal(env.VSCODE_IPC_HOOK_CLI, undefined);
    assert.equal(env.GIT_CONFIG_COUNT, '2');
    assert.equal(env.GIT_CONFIG_VALUE_0, 'Authorization: token x');
  });

  it("keeps the askpass variables only where they point at a program that fails (Agent Bash's)", () => {
    assert.equal(sandboxEnv(host).GIT_ASKPASS, undefined);
    assert.equal(sandboxEnv({ ...host, GIT_ASKPASS: '/usr/bin/false' }).GIT_ASKPASS, '/usr/bin/false');
  });
});
