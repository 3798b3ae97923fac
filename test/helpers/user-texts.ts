/** Text of the user turns the model was sent in one recorded request (the scripted server's `body`). */
export function userTexts(body: unknown): string[] {
  const messages = (
    body as { messages: { role: string; content: string | { type: string; text?: string }[] }[] }
  ).messages;
  return messages
    .filter((message) => message.role === "user")
    .flatMap((message) =>
      typeof message.content === "string"
        ? [message.content]
        : message.content.filter((block) => block.type === "text").map((block) => block.text ?? ""),
    );
}
