import { render } from 'preact';
import { App } from './App.tsx';
import './styles.css';

const root = document.getElementById('app')!;
root.textContent = ''; // the "loading" line shown before the script runs
render(<App />, root);
