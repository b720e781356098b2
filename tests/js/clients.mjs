// The real npm clients against a served agent: `node clients.mjs URL CLIENT SCENARIO`.
//
// CLIENT is ai5, ai6 or ai7 (the Vercel AI SDK's headless chat, `AbstractChat` with the
// SDK's own `DefaultChatTransport`, which validates every chunk with
// `uiMessageChunkSchema`) or ag-ui (`@ag-ui/client`'s HttpAgent, which verifies the
// events' order). Prints one JSON object: what the client ended up holding.
// tests/server/test_agent_ui_npm.py starts the server and asserts on it.

const [url, client, scenario] = process.argv.slice(2);

class State {
  constructor() {
    this.messages = [];
    this.status = "ready";
    this.error = undefined;
  }
  pushMessage(message) {
    this.messages = this.messages.concat(message);
  }
  popMessage() {
    this.messages = this.messages.slice(0, -1);
  }
  replaceMessage(index, message) {
    this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
  }
  snapshot(value) {
    return structuredClone(value);
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function settled(chat) {
  // the chat is idle: ready or failed, and no automatic request follows for a while
  let quiet = 0;
  for (let i = 0; i < 200 && quiet < 4; i++) {
    await sleep(50);
    quiet = chat.status === "ready" || chat.status === "error" ? quiet + 1 : 0;
  }
}

function report(chat, extra = {}) {
  return {
    status: chat.status,
    error: chat.error ? String(chat.error.message ?? chat.error) : null,
    messages: chat.messages,
    ...extra,
  };
}

async function vercel(ai) {
  const transport = new ai.DefaultChatTransport({ api: `${url}/vercel` });
  const approvalsDone = ai.lastAssistantMessageIsCompleteWithApprovalResponses;
  let chat;
  const options = { id: `chat-${scenario}-${client}`, transport, state: new State() };
  if (scenario === "client-tool") {
    options.sendAutomaticallyWhen = ai.lastAssistantMessageIsCompleteWithToolCalls;
    options.onToolCall = ({ toolCall }) => {
      const add = (chat.addToolOutput ?? chat.addToolResult).bind(chat);
      // not awaited, as the SDK's docs say (the chat is still busy with the stream)
      void add({
        tool: toolCall.toolName,
        toolCallId: toolCall.toolCallId,
        output: { location: "Oslo", from: "browser" },
      });
    };
  } else if (approvalsDone) {
    options.sendAutomaticallyWhen = approvalsDone;
  }
  chat = new ai.AbstractChat(options);
  const toolParts = () =>
    chat.messages.flatMap((m) => m.parts).filter((p) => p.type.startsWith("tool-"));

  if (scenario === "approve" || scenario === "deny") {
    await chat.sendMessage({ text: "Clean up" });
    await settled(chat);
    const asked = toolParts().find((p) => p.state === "approval-requested");
    if (!asked) return report(chat, { asked: false });
    const approved = scenario === "approve";
    await chat.addToolApprovalResponse({
      id: asked.approval.id,
      approved,
      reason: approved ? undefined : "not now",
    });
    await settled(chat);
    return report(chat, { asked: true });
  }
  if (scenario === "approve-data") {
    // ai 5 (the app serves approvals as a data part): answer it in the part, send again
    await chat.sendMessage({ text: "Clean up" });
    await settled(chat);
    const last = chat.messages[chat.messages.length - 1];
    const part = last.parts.find((p) => p.type === "data-tool-approval");
    if (!part) return report(chat, { asked: false });
    chat.messages = [
      ...chat.messages.slice(0, -1),
      {
        ...last,
        parts: last.parts.map((p) => (p === part ? { ...p, data: { ...p.data, approved: true } } : p)),
      },
    ];
    await chat.sendMessage();
    await settled(chat);
    return report(chat, { asked: true });
  }
  if (scenario === "regenerate") {
    await chat.sendMessage({ text: "hi" });
    await settled(chat);
    const first = chat.messages.map((m) => m.parts.filter((p) => p.type === "text").map((p) => p.text).join(""));
    await chat.regenerate();
    await settled(chat);
    return report(chat, { first });
  }
  if (scenario === "file") {
    await chat.sendMessage({
      text: "What is this?",
      files: [{ type: "file", mediaType: "image/png", url: "data:image/png;base64,iVBORw0KGgo=" }],
    });
    await settled(chat);
    return report(chat);
  }
  if (scenario === "metadata" || scenario === "client-tool") {
    await chat.sendMessage({ text: "Where am I?" });
    await settled(chat);
    return report(chat);
  }
  if (scenario === "raw") {
    // the stream itself, chunk by chunk through uiMessageChunkSchema, then readUIMessageStream
    const response = await fetch(`${url}/vercel`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        id: `raw-${client}`,
        trigger: "submit-message",
        messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "Clean up" }] }],
      }),
    });
    const text = await response.text();
    const chunks = text
      .split("\n")
      .filter((line) => line.startsWith("data: ") && line !== "data: [DONE]")
      .map((line) => JSON.parse(line.slice(6)));
    const schema = ai.uiMessageChunkSchema();
    const rejected = [];
    for (const chunk of chunks) {
      const result = await schema.validate(chunk);
      if (!result.success) rejected.push(chunk.type);
    }
    const stream = new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    let message = null;
    let failure = null;
    try {
      for await (const m of ai.readUIMessageStream({ stream })) message = m;
    } catch (error) {
      failure = String(error.message ?? error);
    }
    return { status: response.status, types: chunks.map((c) => c.type), rejected, message, failure };
  }
  throw new Error(`unknown scenario ${scenario}`);
}

async function agUi() {
  const { HttpAgent } = await import("@ag-ui/client");
  const agent = new HttpAgent({ url: `${url}/ag-ui`, threadId: `thread-${scenario}` });
  const events = [];
  const subscriber = {
    onEvent({ event }) {
      events.push(event);
    },
  };
  const run = async (parameters = {}) => {
    try {
      const result = await agent.runAgent(parameters, subscriber);
      return { ok: true, result: result.result ?? null };
    } catch (error) {
      return { ok: false, error: String(error.message ?? error) };
    }
  };
  const out = { runs: [] };
  if (scenario === "retry") {
    agent.addMessage({ id: "u1", role: "user", content: "transient glitch" });
    out.runs.push(await run());
    agent.addMessage({ id: "u2", role: "user", content: "hello again" });
    out.runs.push(await run());
  } else if (scenario === "tools") {
    agent.addMessage({ id: "u-weather", role: "user", content: "Weather in Oslo?" });
    out.runs.push(await run());
  } else if (scenario === "empty") {
    out.runs.push(await run());
  } else if (scenario === "approval") {
    agent.addMessage({ id: "u-clean", role: "user", content: "Clean up" });
    out.runs.push(await run());
  } else {
    throw new Error(`unknown scenario ${scenario}`);
  }
  out.events = events.map((e) => ({
    type: e.type,
    messageId: e.messageId,
    parentMessageId: e.parentMessageId,
    toolCallId: e.toolCallId,
    messages: e.messages,
    outcome: e.outcome,
  }));
  out.messages = agent.messages;
  return out;
}

const result = client === "ag-ui" ? await agUi() : await vercel(await import(client));
process.stdout.write(JSON.stringify(result));
