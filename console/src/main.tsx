/** The console's entry: its styles, the app, and the first look at the session. */
import { render } from 'preact';
import { App } from './app.tsx';
import { checkAuth } from './store.ts';
import './styles.css';

render(<App />, document.getElementById('app') as HTMLElement);
void checkAuth();
