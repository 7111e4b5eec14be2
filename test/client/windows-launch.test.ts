// The Workbench on Windows, played here with stubbed process calls: its batch wrapper is
// started through cmd.exe, and it is stopped by the process trees of its port's listeners and
// of the wrapper, as the MITK team's client does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  listenersOf,
  stopWindowsWorkbench,
  windowsCommand,
  type WindowsCalls,
} from '../../src/client/windows-launch.js';

test('a batch wrapper starts through cmd.exe with every argument quoted; a program starts as it is', () => {
  const bat = windowsCommand('C:\\Program Files\\MITK 2026\\MitkWorkbench.bat', [
    '--MITK.preferences-override',
    '@C:\\Users\\Ann Lee\\AppData\\Local\\Temp\\wbplay-launch-x\\mitk_prefs.xml',
  ]);
  assert.equal(bat.command, 'cmd.exe');
  assert.equal(bat.verbatim, true);
  assert.deepEqual(bat.args, [
    '/d',
    '/s',
    '/c',
    '""C:\\Program Files\\MITK 2026\\MitkWorkbench.bat" "--MITK.preferences-override" "@C:\\Users\\Ann Lee\\AppData\\Local\\Temp\\wbplay-launch-x\\mitk_prefs.xml""',
  ]);
  assert.equal(windowsCommand('C:\\MITK\\launch.CMD', ['a"b']).args[3], '""C:\\MITK\\launch.CMD" "a""b""');
  assert.deepEqual(windowsCommand('C:\\MITK\\MitkWorkbench.exe', ['--x']), {
    command: 'C:\\MITK\\MitkWorkbench.exe',
    args: ['--x'],
    verbatim: false,
  });
});

const NETSTAT_V4 = [
  '',
  'Aktive Verbindungen',
  '',
  '  Proto  Lokale Adresse         Remoteadresse          Status           PID',
  '  TCP    0.0.0.0:135            0.0.0.0:0              ABHÖREN          1024',
  '  TCP    127.0.0.1:8081         0.0.0.0:0              ABHÖREN          5120',
  '  TCP    127.0.0.1:8081         127.0.0.1:50712        HERGESTELLT      5120',
  '  TCP    127.0.0.1:50712        127.0.0.1:8081         HERGESTELLT      7777',
  '  TCP    127.0.0.1:18081        0.0.0.0:0              ABHÖREN          4242',
].join('\r\n');
const NETSTAT_V6 =
  '  TCP    [::1]:8081             [::]:0                 LISTENING       5120\r\n  TCP    [::]:8081              [::]:0                 LISTENING       5133\r\n';

test("the port's listeners are read from netstat by position, in any language, IPv4 and IPv6", () => {
  assert.deepEqual(listenersOf(NETSTAT_V4, 8081), [5120]);
  assert.deepEqual(listenersOf(NETSTAT_V6, 8081), [5120, 5133]);
  assert.deepEqual(listenersOf(NETSTAT_V4, 8080), []);
});

test('stopping ends the trees of every listener and of the wrapper, each once', async () => {
  const calls: string[] = [];
  const stub: WindowsCalls = {
    run: (program, args) => {
      calls.push([program, ...args].join(' '));
      if (program === 'netstat') return Promise.resolve(args.includes('TCPv6') ? NETSTAT_V6 : NETSTAT_V4);
      return Promise.resolve('SUCCESS');
    },
  };
  const stopped = await stopWindowsWorkbench(9000, 8081, stub);
  assert.deepEqual(stopped.sort(), [5120, 5133, 9000]);
  assert.deepEqual(calls.filter((c) => c.startsWith('taskkill')).sort(), [
    'taskkill /F /T /PID 5120',
    'taskkill /F /T /PID 5133',
    'taskkill /F /T /PID 9000',
  ]);
  assert.deepEqual(calls.filter((c) => c.startsWith('netstat')).sort(), [
    'netstat -ano -p TCP',
    'netstat -ano -p TCPv6',
  ]);
});
