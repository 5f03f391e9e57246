// Runs eSpeak NG compiled to WebAssembly (the `espeak-ng` npm package, GPL-3.0-or-later) in its
// own process, as a program the gateway talks to over pipes, like Debian's espeak-ng binary: the
// gateway's own code stays apart from it, and a crash or a runaway synthesis ends with this process.
// Plain JavaScript, so that it starts with `node` alone.
// stdin: JSON {op: "voices"} or {op: "speak", voice, text}; stdout: the `--voices` table, or a WAV file.
import ESpeakNg from 'espeak-ng';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const errors = [];
const printErr = (line) => {
  // Emscripten's note that the runtime stays alive after main() is no error.
  if (!/keepRuntimeAlive/.test(line)) errors.push(line);
};

if (input.op === 'voices') {
  const lines = [];
  await ESpeakNg({ arguments: ['--voices'], print: (line) => lines.push(line), printErr });
  process.stdout.write(lines.join('\n'));
} else {
  // The text goes in as a file, never as an argument: a text starting with '-' is no option.
  const es = await ESpeakNg({
    arguments: ['-v', String(input.voice), '-w', '/out.wav', '-f', '/in.txt'],
    preRun: [(module) => module.FS.writeFile('/in.txt', String(input.text))],
    print: () => {},
    printErr,
  });
  let wav;
  try {
    wav = es.FS.readFile('/out.wav');
  } catch {
    process.stderr.write(`espeak-ng wrote no audio: ${errors.join(' ').slice(0, 500)}`);
    process.exit(1);
  }
  process.stdout.write(wav);
}
