#!/usr/bin/env node
// The command's entry: the CLI built from src/cli (npm install builds it).
import "../dist/cli/main.js";
