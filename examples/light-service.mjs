// A third-party device service in ten lines: it receives the gateway's directives (spec 4.5),
// prints them, and answers each with success. Run: node examples/light-service.mjs
import { createServer } from 'node:http';

createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const { directive } = JSON.parse(body);
    console.log(directive.header.name, JSON.stringify(directive.payload));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ event: { header: { ...directive.header, name: 'Response' }, payload: {} } }));
  });
}).listen(8090, '127.0.0.1', () => console.log('listening on http://127.0.0.1:8090'));
