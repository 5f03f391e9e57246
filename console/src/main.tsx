/** The console's entry: its styles, the app, and the first look at the session. */
import { render } from 'preact';
import { App } from './app.tsx';
import { checkAuth } from './store.ts';
// uPlot's few rules for the history's charts, whose code comes when a chart is first shown.
import 'uplot/dist/uPlot.min.css';
import './styles.css';

render(<App />, document.getElementById('app') as HTMLElement);
void checkAuth();
